//! Entry times as the transcript shows them: relative ("3m ago") and absolute (UTC, with
//! the date once a session spans days). Relative times are as of the frame's clock: the
//! transcript notes when it drew one, and while any is on screen the clock ticks once a
//! minute (every second while a turn runs); with none on screen nothing is drawn.

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

/// The relative label of a time `at` seen at `now` (Unix ms).
pub(crate) fn relative(at: i64, now: i64) -> String {
    crate::readable::times::ago(at, now)
}

/// `HH:MM:SS`, or `YYYY-MM-DD HH:MM:SS` with `date` (UTC).
pub(crate) fn absolute(at: i64, date: bool) -> String {
    let (day, clock) = gobare_api::clock::utc_date_and_clock(at);
    if date {
        format!("{day} {clock}")
    } else {
        clock
    }
}

/// Whether two times fall on different (UTC) days.
pub(crate) fn different_days(a: i64, b: i64) -> bool {
    a.div_euclid(DAY) != b.div_euclid(DAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_labels() {
        let at = 1_789_319_090_000;
        assert_eq!(relative(at, at + 5_000), "just now");
        assert_eq!(relative(at, at + 3 * MINUTE + 10), "3m ago");
        assert_eq!(relative(at, at + 2 * HOUR), "2h ago");
        assert_eq!(relative(at, at + 3 * DAY), "3d ago");
        // A clock behind the server's never says "in the future".
        assert_eq!(relative(at, at - 5_000), "just now");
    }

    #[test]
    fn absolute_times_are_utc_with_the_date_on_request() {
        assert_eq!(absolute(1_789_319_090_000, false), "17:04:50");
        assert_eq!(absolute(1_789_319_090_000, true), "2026-09-13 17:04:50");
        assert_eq!(absolute(0, true), "1970-01-01 00:00:00");
        assert!(different_days(0, DAY));
        assert!(!different_days(0, DAY - 1));
    }
}
