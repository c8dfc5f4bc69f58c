//! The request-rate budget as the server last reported it (`x-ratelimit-*`, reference §1.2):
//! each bucket's limit, what remains and when it is full again, read from every answer the
//! client receives, so a view can say "API 87/120" without spending a request to learn it.
//!
//! The numbers are the server's, taken as integers only: a header that is not one is
//! ignored, never shown.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// One bucket's figures, as of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    /// `x-ratelimit-limit`: the bucket's ceiling.
    pub limit: u64,
    /// `x-ratelimit-remaining`: whole requests available at `at_ms`.
    pub remaining: u64,
    /// `x-ratelimit-reset`: seconds from `at_ms` until the bucket is full again.
    pub reset_secs: u64,
    /// When the answer came (Unix ms).
    pub at_ms: i64,
}

impl Bucket {
    /// What remains at `now_ms`, allowing for the refill since the answer: the buckets
    /// refill continuously (§5), so a reading a minute old understates what is there.
    pub fn remaining_at(&self, now_ms: i64) -> u64 {
        if self.reset_secs == 0 || now_ms <= self.at_ms {
            return self.remaining.min(self.limit);
        }
        let elapsed = (now_ms - self.at_ms) as u64;
        let full_in_ms = self.reset_secs * 1000;
        if elapsed >= full_in_ms {
            return self.limit;
        }
        let missing = self.limit.saturating_sub(self.remaining);
        let refilled = missing * elapsed / full_in_ms;
        (self.remaining + refilled).min(self.limit)
    }
}

/// The buckets seen so far, by resource name (`general`, `sessions`).
#[derive(Debug, Default)]
pub struct RateBudget {
    buckets: Mutex<BTreeMap<String, Bucket>>,
}

/// Most distinct resource names kept: a server inventing one per answer cannot grow this.
const MAX_BUCKETS: usize = 8;
/// Longest resource name kept.
const MAX_NAME: usize = 32;

impl RateBudget {
    /// Reads the four headers of one answer; an answer without all three figures changes
    /// nothing.
    pub fn observe(&self, headers: &http::HeaderMap, at_ms: i64) {
        let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<u64>().ok();
        let (Some(limit), Some(remaining), Some(reset_secs)) = (
            number("x-ratelimit-limit"),
            number("x-ratelimit-remaining"),
            number("x-ratelimit-reset"),
        ) else {
            return;
        };
        let resource = headers
            .get("x-ratelimit-resource")
            .and_then(|v| v.to_str().ok())
            .filter(|name| {
                !name.is_empty()
                    && name.len() <= MAX_NAME
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            })
            .unwrap_or("general")
            .to_string();
        let bucket = Bucket {
            limit,
            remaining,
            reset_secs,
            at_ms,
        };
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(&resource) {
            return;
        }
        buckets.insert(resource, bucket);
    }

    /// The last figures of bucket `resource`.
    pub fn bucket(&self, resource: &str) -> Option<Bucket> {
        let buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        buckets.get(resource).copied()
    }

    /// Every bucket seen, by name.
    pub fn all(&self) -> Vec<(String, Bucket)> {
        let buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        buckets.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn keeps_each_bucket_apart() {
        let budget = RateBudget::default();
        budget.observe(
            &headers(&[
                ("x-ratelimit-limit", "120"),
                ("x-ratelimit-remaining", "87"),
                ("x-ratelimit-reset", "17"),
                ("x-ratelimit-resource", "general"),
            ]),
            1_000,
        );
        budget.observe(
            &headers(&[
                ("x-ratelimit-limit", "10"),
                ("x-ratelimit-remaining", "9"),
                ("x-ratelimit-reset", "6"),
                ("x-ratelimit-resource", "sessions"),
            ]),
            2_000,
        );
        let general = budget.bucket("general").unwrap();
        assert_eq!((general.limit, general.remaining), (120, 87));
        assert_eq!(budget.bucket("sessions").unwrap().remaining, 9);
        assert_eq!(budget.all().len(), 2);
    }

    #[test]
    fn a_partial_or_garbled_answer_changes_nothing() {
        let budget = RateBudget::default();
        budget.observe(&headers(&[("x-ratelimit-limit", "120")]), 0);
        budget.observe(
            &headers(&[
                ("x-ratelimit-limit", "lots"),
                ("x-ratelimit-remaining", "1"),
                ("x-ratelimit-reset", "1"),
            ]),
            0,
        );
        assert!(budget.all().is_empty());
        budget.observe(
            &headers(&[
                ("x-ratelimit-limit", "5"),
                ("x-ratelimit-remaining", "1"),
                ("x-ratelimit-reset", "1"),
                ("x-ratelimit-resource", "no such/bucket; x"),
            ]),
            0,
        );
        assert!(
            budget.bucket("general").is_some(),
            "an unsafe name is read as the default bucket"
        );
    }

    #[test]
    fn remaining_refills_towards_the_limit() {
        let b = Bucket {
            limit: 120,
            remaining: 0,
            reset_secs: 60,
            at_ms: 0,
        };
        assert_eq!(b.remaining_at(0), 0);
        assert_eq!(b.remaining_at(30_000), 60);
        assert_eq!(b.remaining_at(60_000), 120);
        assert_eq!(b.remaining_at(-5), 0);
    }
}
