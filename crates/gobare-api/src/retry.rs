//! Retrying a write (reference §2, §4): honour `Retry-After`, back off after network
//! failures, never retry `queue_full` or `project_limit_exceeded` on our own. [`SendRetry::run`]
//! is the one retry loop every write goes through.

use crate::error::{ApiError, ApiErrorKind, RetryHint};
use std::future::Future;
use std::time::Duration;

/// How patiently a write is retried. Every attempt of one write must carry the same
/// Idempotency-Key, so the server replays the first success instead of acting twice.
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
    /// Runs `attempt` until it succeeds, fails in a way a retry cannot fix, or the attempts
    /// run out; waits between attempts as [`ApiError::retry_hint`] and these bounds say.
    /// Before each wait, `on_wait(attempt, wait, &error)` hears which attempt failed, how long
    /// the wait is and why. Returns the last attempt's result and how many attempts were made.
    ///
    /// `attempt` must reuse one Idempotency-Key: a `409 conflict` after an attempt that got
    /// no answer is then that attempt still running on the server, and is retried.
    pub async fn run<T, Attempt, Fut>(
        &self,
        mut attempt: Attempt,
        mut on_wait: impl FnMut(u32, Duration, &ApiError),
    ) -> (Result<T, ApiError>, u32)
    where
        Attempt: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        let mut attempts = 0;
        let mut key_may_be_in_flight = false;
        loop {
            attempts += 1;
            let err = match attempt().await {
                Ok(value) => return (Ok(value), attempts),
                Err(err) => err,
            };
            let Some(wait) = self.delay_before_retry(&err, attempts, key_may_be_in_flight) else {
                return (Err(err), attempts);
            };
            key_may_be_in_flight |= err.kind == ApiErrorKind::Network;
            tracing::info!(
                attempt = attempts,
                wait_ms = wait.as_millis() as u64,
                error = %err,
                "retrying send"
            );
            on_wait(attempts, wait, &err);
            tokio::time::sleep(wait).await;
        }
    }

    /// How long to wait before attempt `attempts_made + 1`, or `None` to give up and
    /// return `err`. `key_may_be_in_flight` is true once an earlier attempt got no answer:
    /// a `409 conflict` for the same key then means the first attempt is still running.
    fn delay_before_retry(
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
    use std::collections::VecDeque;
    use tokio::time::Instant;

    fn coded(status: u16, code: &str, retry_after: Option<&str>) -> ApiError {
        let body = serde_json::json!({"error":{"code":code,"message":"m"}}).to_string();
        ApiError::from_response(status, None, retry_after, body.as_bytes())
    }

    fn network() -> ApiError {
        ApiError::local(ApiErrorKind::Network, "reset")
    }

    /// What one run did: its result, the attempts it counted, the attempts actually made,
    /// the waits it reported and how long it took on the paused clock.
    struct Ran {
        result: Result<&'static str, ApiError>,
        attempts: u32,
        calls: usize,
        waits: Vec<(u32, Duration, ApiErrorKind)>,
        took: Duration,
    }

    /// Runs `policy` over scripted attempt results (an exhausted script answers "ok").
    async fn run(policy: &SendRetry, script: Vec<Result<&'static str, ApiError>>) -> Ran {
        let mut script = VecDeque::from(script);
        let mut calls = 0;
        let mut waits = Vec::new();
        let started = Instant::now();
        let (result, attempts) = policy
            .run(
                || {
                    calls += 1;
                    let next = script.pop_front().unwrap_or(Ok("ok"));
                    async move { next }
                },
                |attempt, wait, err| waits.push((attempt, wait, err.kind)),
            )
            .await;
        Ran {
            result,
            attempts,
            calls,
            waits,
            took: started.elapsed(),
        }
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
        let e = network();
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

    #[tokio::test(start_paused = true)]
    async fn run_waits_out_each_retry_after_and_reports_every_wait() {
        let ran = run(
            &SendRetry::default(),
            vec![
                Err(coded(503, "sandbox_unavailable", Some("7"))),
                Err(coded(429, "rate_limit_exceeded", Some("3"))),
            ],
        )
        .await;
        assert_eq!(ran.result.unwrap(), "ok");
        assert_eq!((ran.attempts, ran.calls), (3, 3));
        assert_eq!(
            ran.waits,
            vec![
                (1, Duration::from_secs(7), ApiErrorKind::Unavailable),
                (2, Duration::from_secs(3), ApiErrorKind::RateLimited),
            ]
        );
        assert_eq!(ran.took, Duration::from_secs(10));
    }

    #[tokio::test(start_paused = true)]
    async fn run_returns_a_refusal_at_once() {
        for refusal in [
            coded(429, "queue_full", Some("1")),
            coded(429, "project_limit_exceeded", Some("1")),
            coded(409, "conflict", None),
        ] {
            let ran = run(&SendRetry::default(), vec![Err(refusal.clone())]).await;
            assert_eq!(ran.result.unwrap_err().code, refusal.code);
            assert_eq!((ran.attempts, ran.calls), (1, 1));
            assert!(ran.waits.is_empty());
            assert_eq!(ran.took, Duration::ZERO);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn run_retries_a_conflict_only_after_an_attempt_that_got_no_answer() {
        let ran = run(
            &SendRetry::default(),
            vec![Err(network()), Err(coded(409, "conflict", None))],
        )
        .await;
        assert_eq!(ran.result.unwrap(), "ok");
        assert_eq!(ran.attempts, 3);
        assert_eq!(
            ran.waits,
            vec![
                (1, Duration::from_millis(500), ApiErrorKind::Network),
                (2, Duration::from_secs(1), ApiErrorKind::Conflict),
            ]
        );
        assert_eq!(ran.took, Duration::from_millis(1500));
    }

    #[tokio::test(start_paused = true)]
    async fn run_gives_up_after_max_attempts_with_the_last_error() {
        let policy = SendRetry {
            max_attempts: 3,
            ..SendRetry::default()
        };
        let ran = run(
            &policy,
            vec![Err(network()), Err(network()), Err(network())],
        )
        .await;
        assert_eq!(ran.result.unwrap_err().kind, ApiErrorKind::Network);
        assert_eq!((ran.attempts, ran.calls), (3, 3));
        assert_eq!(ran.waits.len(), 2);
        assert_eq!(ran.took, Duration::from_millis(1500));
    }
}
