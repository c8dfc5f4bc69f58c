//! Times as people read them, the one way every screen, list and export says them: a
//! moment (`utc`, `utc_words`, `clock`), an age (`ago`, `age`), a length (`duration`) and a
//! deadline (`countdown`).

/// Unix ms as `YYYY-MM-DD HH:MM:SSZ` (UTC).
pub(crate) fn utc(ms: i64) -> String {
    let (day, clock) = gobare_api::clock::utc_date_and_clock(ms);
    format!("{day} {clock}Z")
}

/// How long ago `ms` was at `now_ms`: "just now", "3m ago", "2h ago", "4d ago". The one
/// relative time of the app: lists, the transcript and the file tree all say it so.
pub(crate) fn ago(ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - ms).max(0) / 1000;
    match secs {
        0..60 => "just now".into(),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// How long something ran, the one way every screen, list and export says it: `7s`,
/// `2m 05s`, `1h 02m`, `4d 03h`.
pub(crate) fn duration(ms: i64) -> String {
    Duration(ms).to_string()
}

/// [`duration`] written where it is displayed, without a string of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Duration(pub(crate) i64);

impl std::fmt::Display for Duration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.0.max(0) / 1000;
        let (high, unit, low, low_unit) = match s {
            0..60 => return write_number(f, s, "s"),
            60..3600 => (s / 60, "m ", s % 60, "s"),
            3600..86_400 => (s / 3600, "h ", s % 3600 / 60, "m"),
            _ => (s / 86_400, "d ", s % 86_400 / 3600, "h"),
        };
        write_number(f, high, unit)?;
        if low < 10 {
            f.write_str("0")?;
        }
        write_number(f, low, low_unit)
    }
}

/// `n` then `unit`, through the formatter's plain writes (a number's `Display` pads).
fn write_number(f: &mut std::fmt::Formatter<'_>, n: i64, unit: &str) -> std::fmt::Result {
    f.write_str(itoa::Buffer::new().format(n))?;
    f.write_str(unit)
}

/// A moment in the Markdown export's words: `2026-12-01 13:04:36 UTC`.
pub(crate) fn utc_words(ms: i64) -> String {
    let (day, clock) = gobare_api::clock::utc_date_and_clock(ms);
    format!("{day} {clock} UTC")
}

/// `HH:MM:SS` (UTC) of a Unix-ms timestamp.
pub(crate) fn clock(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let day = secs.rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", day / 3600, day % 3600 / 60, day % 60)
}

/// "now", "3m", "2h", "5d" (as the transcript's "3m ago"): coarse on purpose; a negative
/// age (clock skew) is "now".
pub(crate) fn age(elapsed_ms: i64) -> String {
    match age_parts(elapsed_ms) {
        (_, "now") => "now".into(),
        (n, unit) => format!("{n}{unit}"),
    }
}

/// The age as shown: a count and its unit ("now" has none).
pub(crate) fn age_parts(elapsed_ms: i64) -> (i64, &'static str) {
    match elapsed_ms / 1000 {
        s if s < 60 => (0, "now"),
        s if s < 3600 => (s / 60, "m"),
        s if s < 86_400 => (s / 3600, "h"),
        s => (s / 86_400, "d"),
    }
}

/// How long until an age of `elapsed_ms` is shown differently ("now" → "1m" → "2m" … "1h").
pub(crate) fn age_redraw_in(elapsed_ms: i64) -> i64 {
    let unit = match elapsed_ms.max(0) / 1000 {
        s if s < 3600 => 60_000,
        s if s < 86_400 => 3_600_000,
        _ => 86_400_000,
    };
    if elapsed_ms < 0 {
        // Clock skew: "now" until the row's time comes, then a minute more.
        return unit - elapsed_ms;
    }
    unit - elapsed_ms % unit
}

/// A deadline further than this is not a countdown anyone reads (or a bad clock): the
/// prompt, the inbox and the deadlines show none.
pub(crate) const MAX_COUNTDOWN_MS: i64 = 30 * 24 * 3_600_000;

/// Time left (`0 < left_ms`), in whole seconds rounded up: "expires in 0s" would already be
/// wrong.
pub(crate) fn time_left(left_ms: i64) -> String {
    let secs = left_ms / 1000 + i64::from(left_ms % 1000 != 0);
    duration(secs.saturating_mul(1000))
}

/// "expires in 42s" / "expired", for an action's `expires_at` at `now` (both unix ms);
/// `None` without a deadline, without a clock, or with an absurd one.
pub(crate) fn countdown(expires_at: Option<i64>, now: Option<i64>) -> Option<String> {
    let (at, now) = (expires_at?, now?);
    let left = at.checked_sub(now)?;
    if left <= 0 {
        return Some("expired".into());
    }
    if left > MAX_COUNTDOWN_MS {
        return None;
    }
    Some(format!("expires in {}", time_left(left)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(utc(1_796_134_247_000), "2026-12-01 14:10:47Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00Z");
    }

    #[test]
    fn a_duration_reads_as_formatted_at_every_unit_edge() {
        let formatted = |ms: i64| {
            let s = ms.max(0) / 1000;
            match s {
                0..60 => format!("{s}s"),
                60..3600 => format!("{}m {:02}s", s / 60, s % 60),
                3600..86_400 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
                _ => format!("{}d {:02}h", s / 86_400, s % 86_400 / 3600),
            }
        };
        let edges = [
            0, 1, 9, 10, 59, 60, 61, 69, 70, 599, 600, 3599, 3600, 3660, 86_399,
        ];
        for s in edges
            .into_iter()
            .chain([86_400, 90_000, 86_400 * 12 + 3600 * 9, i64::MAX / 1000])
        {
            for ms in [s * 1000, (s * 1000).saturating_add(999)] {
                assert_eq!(duration(ms), formatted(ms), "{ms}");
            }
        }
        assert_eq!(duration(i64::MIN), "0s");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(7_400), "7s");
        assert_eq!(duration(125_000), "2m 05s");
        assert_eq!(duration(3_720_000), "1h 02m");
        assert_eq!(duration(4 * 86_400_000 + 3 * 3_600_000), "4d 03h");
        assert_eq!(duration(-5), "0s");
    }

    #[test]
    fn ages_round_down_to_the_unit() {
        assert_eq!(ago(0, 59_000), "just now");
        assert_eq!(ago(0, 180_000), "3m ago");
        assert_eq!(ago(0, 7_300_000), "2h ago");
        assert_eq!(ago(10_000, 0), "just now");
    }

    #[test]
    fn clock_is_utc_hours_minutes_seconds() {
        assert_eq!(clock(1_789_319_090_000), "17:04:50");
        assert_eq!(clock(0), "00:00:00");
    }

    #[test]
    fn export_dates_say_utc_words() {
        assert_eq!(utc_words(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_words(1_789_319_090_764), "2026-09-13 17:04:50 UTC");
        assert_eq!(utc_words(951_782_400_000), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn a_deadline_counts_down_and_then_says_expired() {
        assert_eq!(
            countdown(Some(60_000), Some(18_000)).as_deref(),
            Some("expires in 42s")
        );
        assert_eq!(
            countdown(Some(60_000), Some(59_001)).as_deref(),
            Some("expires in 1s")
        );
        assert_eq!(
            countdown(Some(60_000), Some(60_000)).as_deref(),
            Some("expired")
        );
        assert_eq!(
            countdown(Some(60_000), Some(90_000)).as_deref(),
            Some("expired")
        );
        assert_eq!(countdown(None, Some(1)), None);
        assert_eq!(countdown(Some(1), None), None, "no clock yet: no guess");
        assert_eq!(
            countdown(Some(i64::MAX), Some(0)),
            None,
            "absurdly far: none"
        );
        assert_eq!(countdown(Some(0), Some(i64::MIN)), None, "no overflow");
    }
}
