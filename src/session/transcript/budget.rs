//! The transcript's byte budget: what each entry takes, kept exact through in-place
//! updates, and the oldest entries dropped beyond it.

use super::{
    ApprovalEntry, ApprovalOutcome, Entry, EntryKind, FileChangeEntry, FunctionEntry,
    QuestionEntry, ToolCallEntry, Transcript, TurnEndEntry,
};
use gobare_api::model::TodoItem;

impl Transcript {
    /// The entry to change in place. Its bytes leave the count until [`Transcript::settle`]
    /// counts them again as they are then, so a change never skews the budget.
    pub(super) fn get_mut(&mut self, id: u64) -> Option<&mut Entry> {
        if self.touched != Some(id) {
            self.count_touched();
            let bytes = entry_bytes(self.get(id)?);
            self.uncount(bytes);
            self.touched = Some(id);
        }
        let pos = usize::try_from(id.checked_sub(self.base)?).ok()?;
        self.entries.get_mut(pos)
    }

    /// Takes an entry's bytes out of the count. A miscount must never wrap around: a huge
    /// count would drop the whole transcript (debug builds stop on it instead).
    fn uncount(&mut self, bytes: usize) {
        debug_assert!(self.bytes >= bytes, "{} < {bytes}", self.bytes);
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    /// Counts the entry last handed out by `get_mut` again.
    pub(super) fn count_touched(&mut self) {
        if let Some(id) = self.touched.take()
            && let Some(entry) = self.get(id)
        {
            self.bytes += entry_bytes(entry);
        }
    }

    /// After each applied event or item: counts the changed entry again and drops the
    /// oldest entries while the budget is exceeded.
    pub(super) fn settle(&mut self) {
        self.count_touched();
        while self.bytes > self.budget && self.entries.len() > 1 {
            self.drop_oldest();
        }
    }

    pub(super) fn drop_oldest(&mut self) {
        if let Some(dropped) = self.entries.pop_front() {
            self.origins.pop_front();
            self.uncount(entry_bytes(&dropped));
            self.forget(&dropped);
            self.base += 1;
        }
    }
}

/// Heap an entry takes: its slot in the ring plus the text and boxes it owns. Capacities,
/// not lengths: that is what the allocator holds.
pub(crate) fn entry_bytes(entry: &Entry) -> usize {
    fn text(s: &str) -> usize {
        s.len()
    }
    fn opt(s: &Option<String>) -> usize {
        s.as_ref().map_or(0, |s| s.capacity())
    }
    use std::mem::size_of;
    size_of::<Entry>()
        + match &entry.kind {
            EntryKind::User { text: t }
            | EntryKind::Steer { text: t }
            | EntryKind::Agent { text: t }
            | EntryKind::Context { text: t }
            | EntryKind::Dequeued { text: t }
            | EntryKind::Queued { text: t, .. } => t.capacity(),
            EntryKind::Error { message } | EntryKind::RecoveryFailed { message } => {
                message.capacity()
            }
            EntryKind::Tool(t) => {
                size_of::<ToolCallEntry>()
                    + t.call_id.capacity()
                    + t.name.capacity()
                    + t.args.capacity()
                    + t.summary.capacity()
            }
            EntryKind::FileChange(f) => {
                size_of::<FileChangeEntry>() + f.path.capacity() + opt(&f.diff) + opt(&f.call_id)
            }
            EntryKind::Todos { items } => {
                items.capacity() * size_of::<TodoItem>()
                    + items
                        .iter()
                        .map(|i| i.label.capacity() + i.status.capacity())
                        .sum::<usize>()
            }
            EntryKind::Approval(a) => {
                let verdict = match &a.verdict {
                    ApprovalOutcome::Pending => 0,
                    ApprovalOutcome::Approved { code } => opt(code),
                    ApprovalOutcome::Denied { code, reason } => opt(code) + opt(reason),
                };
                size_of::<ApprovalEntry>()
                    + a.call_id.capacity()
                    + a.name.capacity()
                    + a.args.capacity()
                    + verdict
            }
            EntryKind::Question(q) => {
                size_of::<QuestionEntry>()
                    + q.call_id.capacity()
                    + q.question.capacity()
                    + q.options.capacity() * size_of::<String>()
                    + q.options.iter().map(String::capacity).sum::<usize>()
                    + opt(&q.answer)
            }
            EntryKind::Function(f) => {
                size_of::<FunctionEntry>()
                    + f.call_id.capacity()
                    + f.name.capacity()
                    + f.args.capacity()
            }
            EntryKind::Artifact { id, path, .. } => text(id) + text(path),
            EntryKind::Preview { url, .. } => opt(url),
            EntryKind::McpUnavailable { name, reason } => name.capacity() + reason.capacity(),
            EntryKind::Unknown { kind, excerpt } => kind.capacity() + excerpt.capacity(),
            EntryKind::TurnEnd(t) => {
                size_of::<TurnEndEntry>()
                    + t.turn_id.capacity()
                    + t.outcome.as_ref().map_or(0, |o| opt(&o.error))
            }
            EntryKind::Compaction { .. } | EntryKind::ReplayTruncated { .. } => 0,
        }
}
