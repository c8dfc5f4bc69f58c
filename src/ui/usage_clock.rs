//! A usage figure between reads: while the workspace runs it accrues a second a second, so
//! the server's `sandbox_seconds` as of `as_of` goes on with the clock instead of standing
//! still; a read this old is said to be old. The session's Workspace pane and the fleet's
//! usage cells both count this way, so they agree on the same session.

/// A usage read this old is said to be so: the app reads it every minute while the
/// workspace runs, so an older one is a read that failed.
pub(crate) const STALE_USAGE_MS: i64 = 5 * 60_000;

/// Sandbox seconds now: `read_seconds` as of `as_of` (Unix ms), counted on to `now_ms`
/// while the workspace runs.
pub(crate) fn counted_on(
    read_seconds: u64,
    as_of: Option<i64>,
    running: bool,
    now_ms: Option<i64>,
) -> u64 {
    match (running, now_ms, as_of) {
        (true, Some(now), Some(at)) => {
            read_seconds.saturating_add(((now - at).max(0) / 1000) as u64)
        }
        _ => read_seconds,
    }
}

/// How long ago the read was, when that is [`STALE_USAGE_MS`] or more.
pub(crate) fn stale_for(as_of: Option<i64>, now_ms: Option<i64>) -> Option<i64> {
    let since = now_ms? - as_of?;
    (since >= STALE_USAGE_MS).then_some(since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_workspace_counts_on_from_the_read_and_a_paused_one_stands() {
        assert_eq!(counted_on(290, Some(1_000), true, Some(61_999)), 350);
        assert_eq!(counted_on(290, Some(1_000), false, Some(61_999)), 290);
        assert_eq!(counted_on(290, None, true, Some(61_999)), 290);
        // A clock behind the read adds nothing.
        assert_eq!(counted_on(290, Some(5_000), true, Some(1_000)), 290);
    }

    #[test]
    fn a_read_is_old_from_five_minutes() {
        assert_eq!(stale_for(Some(0), Some(STALE_USAGE_MS - 1)), None);
        assert_eq!(
            stale_for(Some(0), Some(STALE_USAGE_MS)),
            Some(STALE_USAGE_MS)
        );
        assert_eq!(stale_for(None, Some(STALE_USAGE_MS)), None);
    }
}
