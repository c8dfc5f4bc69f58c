//! The request-rate budget as the server last reported it (`x-ratelimit-*`, reference §1.2):
//! each bucket's limit, what remains and when it is full again, so a view can say "API
//! 87/120" without spending a request to learn it. The scheduler's mirror reads every
//! answer's headers and keeps the last figures ([`crate::schedule`]); this shows them.
//!
//! The numbers are the server's, taken as integers only: a header that is not one is
//! ignored, never shown.

pub use crate::schedule::BucketFigures as Bucket;
use crate::schedule::{BucketName, Scheduler};

/// The buckets as the scheduler's mirror last heard of them ([`Scheduler::observe`] reads
/// every answer's headers; this only shows what it kept).
#[derive(Debug, Clone, Copy)]
pub struct RateBudget<'a> {
    scheduler: &'a Scheduler,
}

impl<'a> RateBudget<'a> {
    /// What `scheduler` last heard.
    pub fn of(scheduler: &'a Scheduler) -> RateBudget<'a> {
        RateBudget { scheduler }
    }

    /// The last figures of bucket `resource` (`general`, `sessions`).
    pub fn bucket(&self, resource: &str) -> Option<Bucket> {
        self.scheduler
            .last_answer(BucketName::from_header(resource)?)
    }

    /// Every bucket heard of, by name.
    pub fn all(&self) -> Vec<(String, Bucket)> {
        ["general", "sessions"]
            .into_iter()
            .filter_map(|name| Some((name.to_string(), self.bucket(name)?)))
            .collect()
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
    fn shows_each_bucket_the_scheduler_heard_of() {
        let scheduler = Scheduler::new();
        let budget = RateBudget::of(&scheduler);
        assert!(budget.all().is_empty());
        scheduler.observe(&headers(&[
            ("x-ratelimit-limit", "120"),
            ("x-ratelimit-remaining", "87"),
            ("x-ratelimit-reset", "17"),
            ("x-ratelimit-resource", "general"),
        ]));
        scheduler.observe(&headers(&[
            ("x-ratelimit-limit", "10"),
            ("x-ratelimit-remaining", "9"),
            ("x-ratelimit-reset", "6"),
            ("x-ratelimit-resource", "sessions"),
        ]));
        let general = budget.bucket("general").unwrap();
        assert_eq!(
            (general.limit, general.remaining, general.reset_secs),
            (120, 87, 17)
        );
        assert_eq!(budget.bucket("sessions").unwrap().remaining, 9);
        assert_eq!(budget.all().len(), 2);
    }

    #[test]
    fn a_partial_garbled_or_unknown_answer_changes_nothing() {
        let scheduler = Scheduler::new();
        let budget = RateBudget::of(&scheduler);
        scheduler.observe(&headers(&[("x-ratelimit-limit", "120")]));
        scheduler.observe(&headers(&[
            ("x-ratelimit-limit", "lots"),
            ("x-ratelimit-remaining", "1"),
            ("x-ratelimit-reset", "1"),
        ]));
        scheduler.observe(&headers(&[
            ("x-ratelimit-limit", "5"),
            ("x-ratelimit-remaining", "1"),
            ("x-ratelimit-reset", "1"),
            ("x-ratelimit-resource", "no such/bucket; x"),
        ]));
        assert!(budget.all().is_empty());
        assert_eq!(budget.bucket("no such/bucket; x"), None);
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
