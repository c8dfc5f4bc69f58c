//! Budgets in view: what the organization and the token may still spend — session slots
//! (25, a paused workspace holding one), the request rate (`x-ratelimit-*`), each
//! workspace's running time before it is reclaimed — and the `[budget]` threshold on a
//! session's sandbox minutes.

pub(crate) mod config;
pub(crate) mod reclaim;
pub(crate) mod slots;

use gobare_api::rate_budget::Bucket;
use gobare_api::stream::slots::PER_TOKEN;

/// The figures a view shows, gathered by the app from the fleet and the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Budgets {
    /// The fleet's slots and what waits (`None`: no fleet listed).
    pub(crate) counts: Option<slots::Counts>,
    /// The `general` request bucket, as last reported.
    pub(crate) rate: Option<Bucket>,
    /// The `sessions` bucket (creating sessions), as last reported.
    pub(crate) new_sessions: Option<Bucket>,
    /// Event streams this app holds open, of the token's [`PER_TOKEN`].
    pub(crate) streams: usize,
}

impl Budgets {
    /// What `client` last heard of the request buckets, with `counts`.
    pub(crate) fn gather(
        client: &gobare_api::client::ApiClient,
        counts: Option<slots::Counts>,
    ) -> Budgets {
        let rate = client.rate_budget();
        Budgets {
            counts,
            rate: rate.bucket("general"),
            new_sessions: rate.bucket("sessions"),
            streams: gobare_api::stream::slots::open_streams(),
        }
    }

    /// "API 87/120" — and when the bucket is low, when it is full again.
    pub(crate) fn rate_text(&self, now_ms: i64) -> Option<String> {
        let b = self.rate?;
        let left = b.remaining_at(now_ms);
        let mut text = format!("API {left}/{}", b.limit);
        if left * 5 < b.limit {
            let waited = (now_ms - b.at_ms).max(0) / 1000;
            let full_in = (b.reset_secs as i64 - waited).max(0);
            text.push_str(&format!(" (full in {full_in}s)"));
        }
        if let Some(s) = self.new_sessions.filter(|s| s.remaining_at(now_ms) == 0) {
            text.push_str(&format!(" · new sessions 0/{}", s.limit));
        }
        Some(text)
    }

    /// "streams 2/5": the token's open event streams this app holds (another app or tool
    /// with the same token holds its own too).
    pub(crate) fn streams_text(&self) -> Option<String> {
        (self.streams > 0).then(|| format!("streams {}/{PER_TOKEN}", self.streams))
    }

    /// The fleet header's line: "slots 12/25 (3 paused) · API 87/120 · streams 2/5".
    pub(crate) fn line(&self, now_ms: i64) -> Option<String> {
        let parts: Vec<String> = [
            self.counts.map(|c| c.slots_text()),
            self.rate_text(now_ms),
            self.streams_text(),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    /// The header's line for a narrow terminal: "slots 12/25 · API 87/120" (paused slots
    /// and streams left out; a full fleet and a low budget still said, shorter).
    pub(crate) fn compact_line(&self, now_ms: i64) -> Option<String> {
        let slots = self.counts.map(|c| match c.slots_limit() {
            Some((limit, known)) => {
                let full = if known && c.sessions >= limit {
                    " full"
                } else {
                    ""
                };
                format!("slots {}/{limit}{full}", c.sessions)
            }
            None => format!("sessions {}", c.sessions),
        });
        let rate = self.rate.map(|b| {
            let left = b.remaining_at(now_ms);
            let mut text = format!("API {left}/{}", b.limit);
            if left * 5 < b.limit {
                let waited = (now_ms - b.at_ms).max(0) / 1000;
                text.push_str(&format!(" ({}s)", (b.reset_secs as i64 - waited).max(0)));
            }
            text
        });
        let parts: Vec<String> = [slots, rate].into_iter().flatten().collect();
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    /// The header's lines, widest first: the first that fits is drawn.
    pub(crate) fn header_lines(&self, now_ms: i64) -> Vec<String> {
        [self.line(now_ms), self.compact_line(now_ms)]
            .into_iter()
            .flatten()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_slots_and_the_request_budget() {
        assert_eq!(Budgets::default().line(0), None);
        let b = Budgets {
            counts: Some(slots::Counts {
                sessions: 12,
                paused: 3,
                waiting: 0,
                limit: None,
            }),
            rate: Some(Bucket {
                limit: 120,
                remaining: 87,
                reset_secs: 17,
                at_ms: 0,
            }),
            new_sessions: None,
            streams: 2,
        };
        assert_eq!(
            b.line(0).unwrap(),
            "slots 12/25 (3 paused) · API 87/120 · streams 2/5"
        );
        let low = Budgets {
            rate: Some(Bucket {
                limit: 120,
                remaining: 3,
                reset_secs: 58,
                at_ms: 0,
            }),
            new_sessions: Some(Bucket {
                limit: 10,
                remaining: 0,
                reset_secs: 6,
                at_ms: 0,
            }),
            ..Budgets::default()
        };
        assert_eq!(
            low.line(0).unwrap(),
            "API 3/120 (full in 58s) · new sessions 0/10"
        );
        assert_eq!(b.compact_line(0).unwrap(), "slots 12/25 · API 87/120");
        assert_eq!(low.compact_line(0).unwrap(), "API 3/120 (58s)");
        assert_eq!(
            b.header_lines(0),
            [
                "slots 12/25 (3 paused) · API 87/120 · streams 2/5",
                "slots 12/25 · API 87/120"
            ]
        );
    }
}
