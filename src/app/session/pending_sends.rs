//! Message and steer sends in flight, as the input box shows them above the draft.
//!
//! Enter hands the box's text to the sender and empties the box: what is typed next is a
//! new draft, never an edit of the send in flight. Each pending send keeps its text (so a
//! refusal can give it back) and, while it waits out a `Retry-After`, when it retries.

use crate::app::shared::sender::SendTicket;
use gobare_api::text;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What kind of text send it is (the label differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendKind {
    Message,
    Steer,
    Context,
}

#[derive(Debug, Clone)]
struct Pending {
    kind: SendKind,
    text: String,
    /// Waiting out a failed attempt until then; `None` (or past) while an attempt runs.
    retry_at: Option<Instant>,
}

/// The text sends not yet settled, oldest first.
#[derive(Debug, Default)]
pub(crate) struct PendingSends {
    sends: BTreeMap<SendTicket, Pending>,
}

impl PendingSends {
    pub(crate) fn add(&mut self, ticket: SendTicket, kind: SendKind, text: String) {
        self.sends.insert(
            ticket,
            Pending {
                kind,
                text,
                retry_at: None,
            },
        );
    }

    /// The attempt failed; the next starts at `at`.
    pub(crate) fn retrying(&mut self, ticket: SendTicket, at: Instant) {
        if let Some(p) = self.sends.get_mut(&ticket) {
            p.retry_at = Some(at);
        }
    }

    /// The send is over: its text, for the box if it did not take.
    pub(crate) fn settled(&mut self, ticket: SendTicket) -> Option<String> {
        self.sends.remove(&ticket).map(|p| p.text)
    }

    /// One line per pending send, for the rows above the draft: sanitized, one line, the
    /// countdown in whole seconds.
    pub(crate) fn labels(&self, now: Instant) -> Vec<String> {
        self.sends
            .values()
            .map(|p| {
                let verb = match p.kind {
                    SendKind::Message => "sending",
                    SendKind::Steer => "steering",
                    SendKind::Context => "adding context",
                };
                let what = match p.retry_at.filter(|at| *at > now) {
                    Some(at) => {
                        let left = at.saturating_duration_since(now).as_secs_f64();
                        let secs = left.ceil() as u64;
                        format!("waiting {secs} s to retry")
                    }
                    None => verb.to_string(),
                };
                format!("{what}: {}", text::one_line(&p.text, MAX_LABEL_CHARS))
            })
            .collect()
    }

    /// When a countdown shown by [`labels`](Self::labels) next changes; `None` when none runs.
    pub(crate) fn next_change(&self, now: Instant) -> Option<Instant> {
        self.sends
            .values()
            .filter_map(|p| p.retry_at.filter(|at| *at > now))
            .map(|at| {
                let left = at.saturating_duration_since(now);
                // The label shows ceil(left): it changes when `left` crosses a whole second.
                let into_second = Duration::from_nanos((left.as_nanos() % 1_000_000_000) as u64);
                if into_second.is_zero() {
                    now + Duration::from_secs(1).min(left)
                } else {
                    now + into_second
                }
            })
            .min()
    }
}

/// Characters of a pending text shown (the box is rarely wider).
const MAX_LABEL_CHARS: usize = 400;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_say_sending_then_the_countdown_then_sending_again() {
        let now = Instant::now();
        let mut p = PendingSends::default();
        p.add(SendTicket(1), SendKind::Message, "hello\nworld".into());
        assert_eq!(p.labels(now), vec!["sending: hello world"]);
        assert_eq!(p.next_change(now), None);

        p.retrying(SendTicket(1), now + Duration::from_millis(2500));
        assert_eq!(p.labels(now), vec!["waiting 3 s to retry: hello world"]);
        assert_eq!(
            p.next_change(now),
            Some(now + Duration::from_millis(500)),
            "the label changes when 2.5 s left becomes 2 s"
        );
        let later = now + Duration::from_millis(600);
        assert_eq!(p.labels(later), vec!["waiting 2 s to retry: hello world"]);
        let past = now + Duration::from_secs(3);
        assert_eq!(p.labels(past), vec!["sending: hello world"]);
        assert_eq!(p.next_change(past), None);

        assert_eq!(p.settled(SendTicket(1)).as_deref(), Some("hello\nworld"));
        assert!(p.labels(past).is_empty());
        assert_eq!(p.settled(SendTicket(1)), None);
    }

    #[test]
    fn labels_are_one_sanitized_line_in_send_order() {
        let now = Instant::now();
        let mut p = PendingSends::default();
        p.add(SendTicket(2), SendKind::Steer, "left\x1b[2J".into());
        p.add(SendTicket(1), SendKind::Message, "first".into());
        let labels = p.labels(now);
        assert_eq!(labels[0], "sending: first");
        assert!(labels[1].starts_with("steering: left"));
        assert!(!labels[1].contains('\x1b'), "{:?}", labels[1]);
    }
}
