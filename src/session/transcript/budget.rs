//! The transcript's byte budget: what each entry takes, kept exact through in-place
//! updates, and the oldest entries dropped beyond it.

use super::{
    ApprovalEntry, ApprovalOutcome, Entry, EntryKind, FileChangeEntry, FunctionEntry,
    QuestionEntry, ToolCallEntry, Transcript, TurnEndEntry,
};
use gobare_api::model::TodoItem;

/// The revision of an entry read back from the local event log.
const RESTORED_REV: u32 = 1 << 31;

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
        while self.bytes > self.budget + self.overdraft && self.entries.len() > 1 {
            self.drop_oldest();
        }
    }

    /// Puts entries the budget dropped back in front, from `page` (the transcript of the
    /// logged events before the oldest entry kept, see [`crate::session::paging`]): its
    /// newest entries, at most `max_bytes` of them over the budget in all, taking the ids
    /// they had. Returns how many came back.
    pub(crate) fn restore_front(&mut self, page: Transcript, max_bytes: usize) -> usize {
        self.count_touched();
        let mut restored = 0;
        let mut page_entries = page.entries;
        let mut page_origins = page.origins;
        while self.base > self.first_id.unwrap_or(0)
            && let Some(mut entry) = page_entries.pop_back()
        {
            let bytes = entry_bytes(&entry);
            if self.overdraft + bytes > max_bytes {
                break;
            }
            self.base -= 1;
            entry.id = self.base;
            // A revision no cached drawing of the entry once dropped with this id can have.
            entry.rev = RESTORED_REV;
            self.entries.push_front(entry);
            self.origins.push_front(page_origins.pop_back().flatten());
            self.bytes += bytes;
            self.overdraft += bytes;
            restored += 1;
        }
        restored
    }

    /// The user is done reading back: the budget holds again (the oldest entries go).
    pub(crate) fn end_overdraft(&mut self) {
        if self.overdraft > 0 {
            self.overdraft = 0;
            self.settle();
        }
    }

    /// Whether entries read back from the log are held over the budget.
    #[cfg(test)]
    pub(crate) fn in_overdraft(&self) -> bool {
        self.overdraft > 0
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
                    + t.args_full.capacity()
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
