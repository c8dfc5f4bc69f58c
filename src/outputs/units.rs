//! Sizes, rates and times as people read them, for the artifact lists and progress lines of
//! the CLI and the app alike.

use std::time::Duration;

/// "report.md  12.0 MB / 40.0 MB  8.1 MB/s".
pub(crate) fn progress_line(
    label: &str,
    done: u64,
    total: Option<u64>,
    elapsed: Duration,
) -> String {
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
    let of = total.map(|t| format!(" / {}", size(t))).unwrap_or_default();
    format!("{label}  {}{of}  {}/s", size(done), size(rate as u64))
}

/// Bytes in decimal units: "512 B", "1.5 kB", "200.0 MB".
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

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
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        3600..86_400 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {:02}h", s / 86_400, s % 86_400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_rates_read_naturally() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(1_500), "1.5 kB");
        assert_eq!(size(200_000_000), "200.0 MB");
        assert_eq!(
            progress_line("a.bin", 2_000_000, Some(4_000_000), Duration::from_secs(2)),
            "a.bin  2.0 MB / 4.0 MB  1.0 MB/s"
        );
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(utc(1_796_134_247_000), "2026-12-01 14:10:47Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00Z");
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
}
