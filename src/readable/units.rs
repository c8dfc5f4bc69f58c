//! Sizes and rates as people read them, for the artifact lists and progress lines of the CLI
//! and the app alike.

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
}
