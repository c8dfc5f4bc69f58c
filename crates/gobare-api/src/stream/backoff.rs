//! When to try again (reference §7.8): the server's `retry:` hint is a floor for every
//! reconnect, `Retry-After` is honoured on 429/5xx, and repeated failures back off
//! exponentially with jitter up to a cap. Pure: time and randomness come from outside.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

/// The hint used before the server sent any `retry:` line (`events.mdx`: `retry: 2000`).
pub(crate) const DEFAULT_RETRY_HINT: Duration = Duration::from_millis(2000);
/// The first backoff step after a failure.
pub(crate) const BACKOFF_BASE: Duration = Duration::from_millis(1000);
/// Never reconnect faster than this, whatever the server hints (§7.8 item 7: cap the rate).
/// A stream that makes progress on every connection then costs at most 60 of the general
/// bucket's 120 requests a minute; one that makes none backs off far below that.
pub const MIN_RECONNECT: Duration = Duration::from_secs(1);
/// A hostile `retry:` / `Retry-After` cannot park the client for longer than this.
pub(crate) const MAX_SERVER_WAIT: Duration = Duration::from_secs(600);

/// Reconnect timing for one stream.
#[derive(Debug)]
pub(crate) struct StreamBackoff {
    hint: Duration,
    max_backoff: Duration,
    failures: u32,
    rng: SmallRng,
}

impl StreamBackoff {
    pub(crate) fn new(max_backoff: Duration, seed: u64) -> Self {
        StreamBackoff {
            hint: DEFAULT_RETRY_HINT,
            max_backoff,
            failures: 0,
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// The server sent `retry: <ms>`.
    pub(crate) fn set_hint(&mut self, ms: u64) {
        self.hint = Duration::from_millis(ms).min(MAX_SERVER_WAIT);
    }

    /// Consecutive attempts without progress (no new persisted event) since the last one
    /// with.
    pub(crate) fn failures(&self) -> u32 {
        self.failures
    }

    /// A connection delivered a new persisted event: the next outage starts from scratch.
    pub(crate) fn reset(&mut self) {
        self.failures = 0;
    }

    /// An attempt made no progress (could not open, or closed before a new persisted
    /// event: a stream of deltas or truncation notices counts as failing).
    pub(crate) fn record_failure(&mut self) {
        self.failures = self.failures.saturating_add(1);
    }

    /// The wait before the next attempt: the longest of the server's `Retry-After`, the
    /// `retry:` hint, our own backoff and [`MIN_RECONNECT`]. The server's word is a floor,
    /// never a licence: `Retry-After: 0` after repeated failures still backs off.
    pub(crate) fn next_wait(&mut self, retry_after: Option<Duration>) -> Duration {
        let server = retry_after.unwrap_or_default().min(MAX_SERVER_WAIT);
        self.jittered_backoff()
            .max(server)
            .max(self.hint)
            .max(MIN_RECONNECT)
    }

    /// The least a reconnect the user asked for must still wait: the server's word
    /// (`Retry-After`, the `retry:` hint) and our floor stand; only our own backoff is cut.
    pub(crate) fn earliest(&self, retry_after: Option<Duration>) -> Duration {
        retry_after
            .unwrap_or_default()
            .min(MAX_SERVER_WAIT)
            .max(self.hint)
            .max(MIN_RECONNECT)
    }

    /// "Equal jitter": half the exponential step fixed, half random, never above the cap.
    fn jittered_backoff(&mut self) -> Duration {
        if self.failures == 0 {
            return Duration::ZERO;
        }
        let exp = self.failures.saturating_sub(1).min(20);
        let step = BACKOFF_BASE
            .saturating_mul(1u32 << exp)
            .min(self.max_backoff);
        let half = step / 2;
        let jitter_ms = self.rng.random_range(0..=half.as_millis() as u64);
        half + Duration::from_millis(jitter_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backoff() -> StreamBackoff {
        let mut p = StreamBackoff::new(Duration::from_secs(30), 7);
        p.set_hint(0); // let the backoff itself show (MIN_RECONNECT still applies)
        p
    }

    #[test]
    fn first_wait_after_a_clean_drop_is_the_hint() {
        let mut p = StreamBackoff::new(Duration::from_secs(30), 1);
        assert_eq!(p.next_wait(None), DEFAULT_RETRY_HINT);
        p.set_hint(8000);
        assert_eq!(p.next_wait(None), Duration::from_millis(8000));
    }

    #[test]
    fn backoff_grows_is_jittered_and_capped() {
        let mut p = backoff();
        let mut upper_bounds = Vec::new();
        for n in 1..=12u32 {
            p.record_failure();
            let step = (BACKOFF_BASE * 2u32.pow((n - 1).min(20))).min(Duration::from_secs(30));
            let w = p.next_wait(None);
            assert!(w >= step / 2 && w <= step, "failure {n}: {w:?} vs {step:?}");
            upper_bounds.push(step);
        }
        assert!(upper_bounds.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*upper_bounds.last().unwrap(), Duration::from_secs(30));
        // Jitter: at the cap, many draws are not all the same.
        let draws: std::collections::BTreeSet<_> = (0..20).map(|_| p.next_wait(None)).collect();
        assert!(draws.len() > 5, "{draws:?}");
        assert!(draws.iter().all(|d| *d <= Duration::from_secs(30)));
    }

    #[test]
    fn hint_is_a_floor_for_backoff_and_retry_after() {
        let mut p = StreamBackoff::new(Duration::from_secs(30), 3);
        p.set_hint(8000);
        p.record_failure();
        assert!(p.next_wait(None) >= Duration::from_millis(8000));
        assert_eq!(
            p.next_wait(Some(Duration::from_secs(1))),
            Duration::from_millis(8000)
        );
        assert_eq!(
            p.next_wait(Some(Duration::from_secs(20))),
            Duration::from_secs(20)
        );
    }

    #[test]
    fn reset_starts_the_next_outage_from_scratch() {
        let mut p = backoff();
        for _ in 0..6 {
            p.record_failure();
        }
        p.reset();
        assert_eq!(p.failures(), 0);
        assert_eq!(p.next_wait(None), MIN_RECONNECT);
    }

    /// `retry: 0` and `Retry-After: 0` are floors of nothing: repeated failures still back
    /// off, and nothing reconnects sooner than [`MIN_RECONNECT`].
    #[test]
    fn zero_hints_from_the_server_never_speed_up_reconnects() {
        let mut p = backoff();
        assert_eq!(p.next_wait(Some(Duration::ZERO)), MIN_RECONNECT);
        assert_eq!(p.earliest(Some(Duration::ZERO)), MIN_RECONNECT);
        let mut waits = Vec::new();
        for _ in 0..8 {
            p.record_failure();
            waits.push(p.next_wait(Some(Duration::ZERO)));
        }
        assert!(waits.iter().all(|w| *w >= MIN_RECONNECT), "{waits:?}");
        assert!(waits[7] >= Duration::from_secs(15), "{waits:?}");
        // Progress resets the count; the floor stays.
        p.reset();
        assert_eq!(p.next_wait(Some(Duration::ZERO)), MIN_RECONNECT);
    }

    #[test]
    fn hostile_server_waits_are_bounded() {
        let mut p = backoff();
        p.set_hint(u64::MAX);
        assert_eq!(p.next_wait(None), MAX_SERVER_WAIT);
        assert_eq!(
            p.next_wait(Some(Duration::from_secs(1 << 40))),
            MAX_SERVER_WAIT
        );
    }
}
