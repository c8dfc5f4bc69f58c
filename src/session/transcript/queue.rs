//! The messages waiting in the server's queue, as the transcript shows them: each
//! `⏸ queued #N` entry reads its position now, not the one it had when it arrived (each
//! dequeue moves those behind up one), so two lines never name the same place.

use super::{EntryKind, Transcript};
use std::collections::VecDeque;

/// Entries of messages still queued, oldest first (the server's order).
#[derive(Debug, Clone, Default)]
pub(crate) struct WaitingQueue {
    waiting: VecDeque<(u64, String)>,
}

impl WaitingQueue {
    /// Whether a message with exactly this text is still queued.
    pub(crate) fn holds(&self, text: &str) -> bool {
        self.waiting.iter().any(|(_, t)| t.trim() == text.trim())
    }
}

impl Transcript {
    /// `message.queued`: its entry (carrying the server's position) joins the line.
    pub(super) fn message_queued(&mut self, id: u64, text: &str) {
        self.queue.waiting.push_back((id, text.to_string()));
    }

    /// `message.dequeued`: the message that started leaves the line (the one with its
    /// text, else the first), and those behind it move up.
    pub(super) fn message_dequeued(&mut self, text: &str) {
        let at = self
            .queue
            .waiting
            .iter()
            .position(|(_, t)| t == text)
            .unwrap_or(0);
        if let Some((id, _)) = self.queue.waiting.remove(at)
            && let Some(entry) = self.get_mut(id)
            && let EntryKind::Queued { position, .. } = &mut entry.kind
        {
            *position = None;
            entry.rev += 1;
        }
        self.move_queue_up();
    }

    /// What is still queued on the server, first in line first.
    pub(crate) fn waiting_queue(&self) -> &WaitingQueue {
        &self.queue
    }

    /// Everyone still in line moves up one place (the server's positions start at 1).
    fn move_queue_up(&mut self) {
        let ids: Vec<u64> = self.queue.waiting.iter().map(|(id, _)| *id).collect();
        for id in ids {
            if let Some(entry) = self.get_mut(id)
                && let EntryKind::Queued {
                    position: Some(p), ..
                } = &mut entry.kind
                && *p > 1
            {
                *p -= 1;
                entry.rev += 1;
            }
        }
    }
}
