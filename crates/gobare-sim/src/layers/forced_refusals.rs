//! Refusals a test asks for ahead ([`crate::Simulator::refuse_next`]): the next few
//! requests of one kind answer `429 rate_limit_exceeded` with a chosen `Retry-After`,
//! however full the bucket, so a client's waiting is tested without racing a refill.

use std::time::Instant;

/// A request the refusals matched, as the rate-limit layer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedRequest {
    /// `METHOD /path?query`.
    pub request: String,
    /// When it arrived.
    pub at: Instant,
    /// Whether it was refused (else it went on to the bucket as any request does).
    pub refused: bool,
}

/// What is still to be refused, and every request matched so far.
#[derive(Debug, Default)]
pub(crate) struct Forced {
    /// `METHOD /path` prefix, how many more to refuse, and their `Retry-After` seconds.
    ahead: Option<(String, u32, u64)>,
    record: Vec<MatchedRequest>,
}

impl Forced {
    /// Refuses the next `count` requests whose `METHOD /path?query` starts with `prefix`,
    /// each with `retry_after_secs`; those after are recorded, not refused. The record
    /// starts again.
    pub(crate) fn refuse_next(&mut self, prefix: &str, count: u32, retry_after_secs: u64) {
        self.ahead = Some((prefix.to_string(), count, retry_after_secs.max(1)));
        self.record.clear();
    }

    /// The `Retry-After` of `request` when it is to be refused.
    pub(crate) fn admit(&mut self, request: &str) -> Option<u64> {
        let (prefix, left, retry_after) = self.ahead.as_mut()?;
        if !request.starts_with(prefix.as_str()) {
            return None;
        }
        let refused = *left > 0;
        *left = left.saturating_sub(1);
        self.record.push(MatchedRequest {
            request: request.to_string(),
            at: Instant::now(),
            refused,
        });
        refused.then_some(*retry_after)
    }

    pub(crate) fn record(&self) -> Vec<MatchedRequest> {
        self.record.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_matching_requests_are_refused_and_the_rest_recorded() {
        let mut forced = Forced::default();
        assert_eq!(forced.admit("GET /v1/sessions"), None, "nothing asked");
        forced.refuse_next("GET /v1/sessions/s1/artifacts", 2, 3);
        assert_eq!(forced.admit("GET /v1/sessions/s1"), None);
        assert_eq!(forced.admit("GET /v1/sessions/s1/artifacts"), Some(3));
        assert_eq!(
            forced.admit("GET /v1/sessions/s1/artifacts?after=a"),
            Some(3)
        );
        assert_eq!(forced.admit("GET /v1/sessions/s1/artifacts"), None);
        let refused: Vec<bool> = forced.record().iter().map(|m| m.refused).collect();
        assert_eq!(refused, [true, true, false]);
    }
}
