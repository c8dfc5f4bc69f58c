//! The wall clock, as the API writes time: milliseconds since the Unix epoch.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch; 0 if the system clock is set before it.
pub fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_reads_after_2024() {
        // 2024-01-01T00:00:00Z: a clock that reads earlier is broken or not milliseconds.
        assert!(super::unix_ms() > 1_704_067_200_000);
    }
}
