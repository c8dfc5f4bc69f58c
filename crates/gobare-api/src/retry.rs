//! When to retry a failed write (reference §2, §4): honour `Retry-After`, back off after
//! network failures, never retry `queue_full` or `project_limit_exceeded` on our own.

use crate::error::{ApiError, ApiErrorKind, RetryHint};
use std::time::Duration;

/// Bounds for [`crate::client::ApiClient::send_with_retry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendRetry {
    /// Total attempts, the first included.
    pub max_attempts: u32,
    /// A `Retry-After` longer than this is surfaced to the caller instead of waited out.
    pub max_wait: Duration,
    /// First backoff after a failure with no `Retry-After` (doubles per attempt).
    pub backoff_base: Duration,
    /// Ceiling of that backoff.
    pub backoff_max: Duration,
}

impl Default for SendRetry {
    fn default() -> Self {
        SendRetry {
            max_attempts: 4,
            max_wait: Duration::from_secs(60),
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(8),
        }
    }
}

impl SendRetry {
    /// How long to wait before attempt `attempts_made + 1`, or `None` to give up and
    /// return `err`. `key_may_be_in_flight` is true once an earlier attempt got no answer:
    /// a `409 conflict` for the same key then means the first attempt is still running.
    pub fn delay_before_retry(
        &self,
        err: &ApiError,
        attempts_made: u32,
        key_may_be_in_flight: bool,
    ) -> Option<Duration> {
        if attempts_made >= self.max_attempts {
            return None;
        }
        match err.retry_hint() {
            RetryHint::After(wait) => (wait <= self.max_wait).then_some(wait),
            RetryHint::Backoff => Some(self.backoff(attempts_made)),
            RetryHint::Never if err.kind == ApiErrorKind::Conflict && key_may_be_in_flight => {
                Some(self.backoff(attempts_made))
            }
            RetryHint::Never | RetryHint::WhenQueueDrains(_) => None,
        }
    }

    fn backoff(&self, attempts_made: u32) -> Duration {
        let factor = 1u32 << attempts_made.saturating_sub(1).min(16);
        self.backoff_base
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coded(status: u16, code: &str, retry_after: Option<&str>) -> ApiError {
        let body = serde_json::json!({"error":{"code":code,"message":"m"}}).to_string();
        ApiError::from_response(status, None, retry_after, body.as_bytes())
    }

    #[test]
    fn waits_exactly_retry_after_when_given() {
        let p = SendRetry::default();
        let e = coded(503, "sandbox_unavailable", Some("7"));
        assert_eq!(
            p.delay_before_retry(&e, 1, false),
            Some(Duration::from_secs(7))
        );
        let e = coded(429, "rate_limit_exceeded", Some("120"));
        assert_eq!(
            p.delay_before_retry(&e, 1, false),
            None,
            "longer than max_wait"
        );
    }

    #[test]
    fn never_retries_queue_full_project_limit_or_client_errors() {
        let p = SendRetry::default();
        for e in [
            coded(429, "queue_full", Some("1")),
            coded(429, "project_limit_exceeded", Some("1")),
            coded(400, "invalid_request", None),
            coded(401, "authentication_error", None),
            coded(500, "internal_error", None),
            coded(409, "conflict", None),
        ] {
            assert_eq!(p.delay_before_retry(&e, 1, false), None, "{e}");
        }
    }

    #[test]
    fn network_failures_back_off_and_attempts_are_bounded() {
        let p = SendRetry::default();
        let e = ApiError::local(ApiErrorKind::Network, "reset");
        assert_eq!(
            p.delay_before_retry(&e, 1, false),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            p.delay_before_retry(&e, 2, false),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            p.delay_before_retry(&e, 3, false),
            Some(Duration::from_secs(2))
        );
        assert_eq!(p.delay_before_retry(&e, 4, false), None);
        let long = SendRetry {
            max_attempts: 100,
            ..SendRetry::default()
        };
        assert_eq!(
            long.delay_before_retry(&e, 60, false),
            Some(Duration::from_secs(8))
        );
    }

    #[test]
    fn conflict_after_a_lost_answer_is_the_first_attempt_in_flight() {
        let p = SendRetry::default();
        let e = coded(409, "conflict", None);
        assert_eq!(
            p.delay_before_retry(&e, 2, true),
            Some(Duration::from_secs(1))
        );
    }
}
