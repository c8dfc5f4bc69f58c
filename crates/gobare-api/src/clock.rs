//! The wall clock, as the API writes time: milliseconds since the Unix epoch.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch; 0 if the system clock is set before it.
pub fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Unix milliseconds as UTC `("YYYY-MM-DD", "HH:MM:SS")`: the one calendar conversion the
/// client's displays and exports share (Howard Hinnant's `civil_from_days`).
pub fn utc_date_and_clock(ms: i64) -> (String, String) {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!("{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates_cross_leap_days_and_the_epoch() {
        let at = |ms| super::utc_date_and_clock(ms);
        assert_eq!(at(0), ("1970-01-01".into(), "00:00:00".into()));
        // 2024-02-29T23:59:59Z and the second after it.
        assert_eq!(
            at(1_709_251_199_000),
            ("2024-02-29".into(), "23:59:59".into())
        );
        assert_eq!(
            at(1_709_251_200_000),
            ("2024-03-01".into(), "00:00:00".into())
        );
        assert_eq!(at(-1_000), ("1969-12-31".into(), "23:59:59".into()));
    }

    #[test]
    fn the_clock_reads_after_2024() {
        // 2024-01-01T00:00:00Z: a clock that reads earlier is broken or not milliseconds.
        assert!(super::unix_ms() > 1_704_067_200_000);
    }
}
