//! Events of one family into entries: what the user and the agent say: messages, steers, context, streaming text and reasoning, the queue.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::ConversationEvent;

impl Transcript {
    pub(super) fn apply_conversation_event(
        &mut self,
        at: Option<i64>,
        ev: ConversationEvent<'_>,
        thinking_was_open: bool,
    ) -> bool {
        use ConversationEvent as P;
        match ev {
            P::AgentText(d) => self.stream(|s| &mut s.text, &d.delta),
            P::AgentThinking(d) => {
                self.thinking_open = true;
                let block_starts = !thinking_was_open
                    && self
                        .streaming
                        .as_ref()
                        .is_some_and(|s| !s.thinking.is_empty());
                if block_starts && !d.delta.is_empty() {
                    // A new block of reasoning: never glued onto the last one.
                    self.stream(|s| &mut s.thinking, "\n\n");
                }
                self.stream(|s| &mut s.thinking, &d.delta)
            }
            P::AgentMessage(t) => {
                // The reasoning folds away with the provisional text: deltas are transient,
                // so a kept copy would not survive a restart (the screen must).
                self.streaming = None;
                self.streaming_rev += 1;
                self.push_keyed(
                    Source::Event,
                    at,
                    EntryKind::Agent {
                        text: t.text.clone(),
                    },
                );
                true
            }
            P::UserMessage(t) => {
                let text = t.text.clone();
                let kind = if self.history_inside_turn && self.turn_asked {
                    EntryKind::Steer { text }
                } else {
                    self.turn_asked = true;
                    EntryKind::User { text }
                };
                self.push_keyed(Source::Event, at, kind)
            }
            P::UserContext(t) => self.push_keyed(
                Source::Event,
                at,
                EntryKind::Context {
                    text: t.text.clone(),
                },
            ),
            P::MessageQueued(q) => {
                let id = self.push(
                    at,
                    EntryKind::Queued {
                        text: q.text.clone(),
                        position: q.position,
                    },
                );
                self.message_queued(id, &q.text);
                true
            }
            P::MessageDequeued(q) => {
                self.message_dequeued(&q.text);
                self.push(
                    at,
                    EntryKind::Dequeued {
                        text: q.text.clone(),
                    },
                );
                true
            }
        }
    }
}
