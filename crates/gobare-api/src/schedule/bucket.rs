//! One rate bucket as this process believes it stands: the server's last figures
//! (`x-ratelimit-*`, §1.2), refilled continuously since (§5), less what this process has
//! sent and not yet heard back about. Pure: every decision takes the time it is made at.

use super::class::RequestClass;
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// Requests let out at once before any answer has said how large the bucket is.
pub(crate) const PROBE_IN_FLIGHT: u32 = 4;
/// The window over which background spending is capped.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);

/// Which bucket a request is charged to (§5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BucketName {
    /// Everything under `/v1` but creating a session: 120 a minute per token.
    General,
    /// `POST /v1/sessions`: 10 a minute per token.
    Sessions,
}

impl BucketName {
    /// The bucket a request to `path` with `method` is charged to.
    pub(crate) fn of(method: &http::Method, path: &str) -> BucketName {
        let path = path.trim_end_matches('/');
        if method == http::Method::POST && path.ends_with("/v1/sessions") {
            BucketName::Sessions
        } else {
            BucketName::General
        }
    }

    /// The name in `x-ratelimit-resource`.
    pub(crate) fn from_header(name: &str) -> Option<BucketName> {
        match name {
            "general" => Some(BucketName::General),
            "sessions" => Some(BucketName::Sessions),
            _ => None,
        }
    }
}

/// One bucket's figures, as of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketFigures {
    /// `x-ratelimit-limit`: the bucket's ceiling.
    pub limit: u64,
    /// `x-ratelimit-remaining`: whole requests available at `at_ms`.
    pub remaining: u64,
    /// `x-ratelimit-reset`: seconds from `at_ms` until the bucket is full again.
    pub reset_secs: u64,
    /// When the answer came (Unix ms).
    pub at_ms: i64,
}

impl BucketFigures {
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

/// Whether a request may go now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Send it.
    Go,
    /// Not before this instant (or an earlier change to the bucket).
    NotBefore(Instant),
}

/// The bucket's mirror.
#[derive(Debug, Clone)]
pub(crate) struct BucketMirror {
    /// The ceiling, once an answer said it.
    limit: Option<u32>,
    /// What remained at `at`, as estimated from the last answer.
    remaining: f64,
    /// Refill per second.
    per_sec: f64,
    at: Instant,
    /// Sent and not yet answered.
    in_flight: u32,
    /// A 429's `Retry-After`: nothing but a person's action goes before it.
    blocked_until: Option<Instant>,
    /// When each background request of the last [`WINDOW`] went out.
    background_sent: VecDeque<Instant>,
    /// The least seen remaining (for the figures).
    lowest_seen: Option<u32>,
    /// The last answer's figures as the server wrote them, for a view to show.
    last_answer: Option<BucketFigures>,
}

impl BucketMirror {
    pub(crate) fn new(now: Instant) -> BucketMirror {
        BucketMirror {
            limit: None,
            remaining: 0.0,
            per_sec: 0.0,
            at: now,
            in_flight: 0,
            blocked_until: None,
            background_sent: VecDeque::new(),
            lowest_seen: None,
            last_answer: None,
        }
    }

    /// The server's figures from one answer: `remaining` of `limit`, full in `reset_secs`.
    pub(crate) fn observe(&mut self, limit: u32, remaining: u32, reset_secs: u64, now: Instant) {
        let limit = limit.max(1);
        let remaining = remaining.min(limit);
        let missing = f64::from(limit - remaining);
        self.per_sec = if reset_secs > 0 && missing > 0.0 {
            missing / reset_secs as f64
        } else {
            // Full now: the reference refills a whole bucket in a minute (§5).
            f64::from(limit) / 60.0
        };
        self.limit = Some(limit);
        self.remaining = f64::from(remaining);
        self.at = now;
        self.lowest_seen = Some(self.lowest_seen.map_or(remaining, |l| l.min(remaining)));
    }

    /// A 429 on this bucket: empty until `retry_after` has passed.
    pub(crate) fn refused(&mut self, retry_after: Duration, now: Instant) {
        self.remaining = 0.0;
        self.at = now;
        let until = now + retry_after;
        self.blocked_until = Some(self.blocked_until.map_or(until, |b| b.max(until)));
    }

    pub(crate) fn sent(&mut self, class: RequestClass, now: Instant) {
        self.in_flight += 1;
        if class == RequestClass::Background {
            self.background_sent.push_back(now);
        }
    }

    pub(crate) fn answered(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// Keeps the figures of the answer just observed, as the server wrote them.
    pub(crate) fn keep_answer(&mut self, answer: BucketFigures) {
        self.last_answer = Some(answer);
    }

    pub(crate) fn last_answer(&self) -> Option<BucketFigures> {
        self.last_answer
    }

    pub(crate) fn limit(&self) -> Option<u32> {
        self.limit
    }

    pub(crate) fn lowest_seen(&self) -> Option<u32> {
        self.lowest_seen
    }

    /// Whole requests this process may still count on at `now`.
    pub(crate) fn available(&self, now: Instant) -> f64 {
        let Some(limit) = self.limit else {
            return f64::from(PROBE_IN_FLIGHT.saturating_sub(self.in_flight));
        };
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        let refilled = (self.remaining + elapsed * self.per_sec).min(f64::from(limit));
        refilled - f64::from(self.in_flight)
    }

    /// What `class` must leave in the bucket: the last quarter is a person's. Bulk work
    /// leaves a third: another process on the token (a fleet beside a report) sends from
    /// its own reading of the same bucket, and the margin keeps the two together above the
    /// person's quarter.
    /// Everything else leaves the quarter and a few more (a fortieth, at least 2): what is
    /// in flight when the answers cross keeps the quarter whole (measured: 29 of 120 at
    /// worst with the quarter alone, a fleet beside a report).
    fn reserve(&self, class: RequestClass) -> f64 {
        match (class, self.limit) {
            (RequestClass::Action, _) | (_, None) => 0.0,
            (RequestClass::Bulk, Some(limit)) => f64::from(limit) / 3.0,
            (_, Some(limit)) => f64::from(limit) / 4.0 + (f64::from(limit) / 40.0).max(2.0),
        }
    }

    /// Whether `class` may send one request at `now`, else when to look again.
    pub(crate) fn decide(&mut self, class: RequestClass, now: Instant) -> Decision {
        if let Some(until) = self.blocked_until {
            if now < until && class != RequestClass::Action {
                return Decision::NotBefore(until);
            }
            if now >= until {
                self.blocked_until = None;
            }
        }
        let mut not_before = now;
        if class == RequestClass::Background
            && let Some(limit) = self.limit
        {
            while self
                .background_sent
                .front()
                .is_some_and(|t| now.saturating_duration_since(*t) >= WINDOW)
            {
                self.background_sent.pop_front();
            }
            let share = (limit / 2).max(1) as usize;
            if self.background_sent.len() >= share {
                let oldest = self.background_sent[self.background_sent.len() - share];
                not_before = not_before.max(oldest + WINDOW);
            }
        }
        if self.limit.is_none() && class == RequestClass::Action {
            return Decision::Go;
        }
        let needed = self.reserve(class) + 1.0;
        let available = self.available(now);
        if available < needed {
            if self.limit.is_none() || self.per_sec <= 0.0 {
                // Unknown size: wait for an answer (the caller also wakes on every answer).
                return Decision::NotBefore(now + Duration::from_secs(1));
            }
            let secs = (needed - available) / self.per_sec;
            not_before = not_before.max(now + Duration::from_secs_f64(secs.min(3600.0)));
        }
        if not_before > now {
            Decision::NotBefore(not_before)
        } else {
            Decision::Go
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bucket as a server refilling 2 a second reports it.
    fn mirror(limit: u32, remaining: u32, now: Instant) -> BucketMirror {
        let mut m = BucketMirror::new(now);
        m.observe(
            limit,
            remaining,
            u64::from(limit - remaining).div_ceil(2),
            now,
        );
        m
    }

    #[test]
    fn requests_go_to_the_buckets_the_reference_names() {
        let post = http::Method::POST;
        let get = http::Method::GET;
        assert_eq!(BucketName::of(&post, "/v1/sessions"), BucketName::Sessions);
        assert_eq!(
            BucketName::of(&post, "/gw/v1/sessions/"),
            BucketName::Sessions
        );
        assert_eq!(BucketName::of(&get, "/v1/sessions"), BucketName::General);
        assert_eq!(
            BucketName::of(&post, "/v1/sessions/x/events"),
            BucketName::General
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_last_quarter_is_kept_for_a_persons_action() {
        let now = Instant::now();
        // The quarter (30) and a margin of 3 stay; one read may go.
        let mut m = mirror(120, 34, now);
        assert_eq!(m.decide(RequestClass::OnScreen, now), Decision::Go);
        m.sent(RequestClass::OnScreen, now);
        for class in [
            RequestClass::OnScreen,
            RequestClass::Background,
            RequestClass::Bulk,
        ] {
            assert!(
                matches!(m.decide(class, now), Decision::NotBefore(t) if t > now),
                "{class:?} must not take the last 33 of 120"
            );
        }
        for _ in 0..33 {
            assert_eq!(m.decide(RequestClass::Action, now), Decision::Go);
            m.sent(RequestClass::Action, now);
        }
        assert!(matches!(
            m.decide(RequestClass::Action, now),
            Decision::NotBefore(_)
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn a_short_bucket_says_when_it_will_have_room_again() {
        let now = Instant::now();
        // 120 a minute refills 2 a second; 30 are the person's and 3 a margin, so a read
        // waits for 4 more: 2 s.
        let mut m = BucketMirror::new(now);
        m.observe(120, 30, 45, now);
        let Decision::NotBefore(at) = m.decide(RequestClass::OnScreen, now) else {
            panic!("must wait")
        };
        assert_eq!(at - now, Duration::from_secs(2));
        assert_eq!(
            m.decide(RequestClass::OnScreen, now + Duration::from_secs(2)),
            Decision::Go
        );
        // Bulk work leaves a third (40 of 120): 5.5 s of refill.
        let Decision::NotBefore(at) = m.decide(RequestClass::Bulk, now) else {
            panic!("must wait")
        };
        assert_eq!(at - now, Duration::from_millis(5_500));
    }

    #[tokio::test(start_paused = true)]
    async fn background_never_takes_more_than_half_a_bucket_a_minute() {
        let start = Instant::now();
        let mut m = mirror(120, 120, start);
        let mut sent = 0;
        let mut now = start;
        // Even with the server saying the bucket is full each time, background stops at 60.
        while now < start + WINDOW {
            m.observe(120, 120, 0, now);
            if m.decide(RequestClass::Background, now) == Decision::Go {
                m.sent(RequestClass::Background, now);
                m.answered();
                sent += 1;
            }
            now += Duration::from_millis(100);
        }
        assert_eq!(sent, 60);
        assert_eq!(m.decide(RequestClass::OnScreen, now), Decision::Go);
    }

    #[tokio::test(start_paused = true)]
    async fn a_refusal_holds_everyone_but_a_person_until_retry_after() {
        let now = Instant::now();
        let mut m = mirror(120, 100, now);
        m.refused(Duration::from_secs(3), now);
        assert_eq!(
            m.decide(RequestClass::OnScreen, now),
            Decision::NotBefore(now + Duration::from_secs(3))
        );
        assert_eq!(
            m.decide(RequestClass::Action, now),
            Decision::NotBefore(now + Duration::from_millis(500))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn before_any_answer_a_few_requests_probe_the_bucket() {
        let now = Instant::now();
        let mut m = BucketMirror::new(now);
        for _ in 0..PROBE_IN_FLIGHT {
            assert_eq!(m.decide(RequestClass::Bulk, now), Decision::Go);
            m.sent(RequestClass::Bulk, now);
        }
        assert!(matches!(
            m.decide(RequestClass::Bulk, now),
            Decision::NotBefore(_)
        ));
        assert_eq!(m.decide(RequestClass::Action, now), Decision::Go);
    }
}
