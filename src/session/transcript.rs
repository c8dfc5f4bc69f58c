//! Transcript entries derived from persisted events (and backfilled items), plus the
//! provisional text the current message is being streamed into.
//!
//! De-duplication between items and events (the app normally uses one source): tool calls,
//! approvals, questions and function calls are keyed by `toolCallId`, so the second source
//! updates the entry the first created. Messages, context, errors, MCP notices and file
//! changes carry no id; each is matched by (kind, text) and one item cancels at most one
//! event with the same key and vice versa (a multiset match), whatever the order.

use super::sensitive::SensitiveCalls;
use super::text::{clip, compact_json, key, short_args};
use gobare_api::model::{ChangeKind, Event, TodoItem, TurnStatus};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// The transcript's indices: probed for nearly every event applied, so a fast hash
/// (foldhash, seeded at random per map) rather than the standard SipHash.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

mod budget;
mod by_family;
mod items;
mod on_conversation;
mod on_decisions;
mod on_turns;
mod on_work;
mod on_workspace;
mod queue;
mod select;
mod web_link;

pub(crate) use budget::entry_bytes;
pub(crate) use by_family::{
    ConversationEntry, DecisionsEntry, EntryByFamily, TurnsEntry, WorkEntry, WorkspaceEntry,
};
pub(crate) use web_link::{link_end, web_link};

/// Entries kept; the oldest are dropped beyond this.
pub(crate) const TRANSCRIPT_CAPACITY: usize = 100_000;
/// Default heap the kept entries may take (their text, as counted by [`entry_bytes`]); the
/// oldest are dropped beyond it. Entries are capped in size, but 100,000 of them at a few KB
/// each would still be hundreds of MB in a window left open for days.
pub(crate) const TRANSCRIPT_BUDGET_BYTES: usize = 24 * 1024 * 1024;
/// Longest argument excerpt stored per call.
const ARGS_MAX: usize = 200;
/// Longest pretty-printed arguments kept for the expanded view of a call.
const ARGS_FULL_MAX: usize = 8 * 1024;
/// Longest tool summary stored.
const SUMMARY_MAX: usize = 2_000;
/// Longest diff kept for the expandable view.
const DIFF_MAX: usize = 64 * 1024;
/// Unmatched event keys remembered for matching late items.
const MATCH_KEYS_MAX: usize = 200_000;
/// Longest provisional text kept while streaming (the settled message replaces it).
const STREAM_MAX: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Stable for the life of the view; never reused.
    pub(crate) id: u64,
    /// Bumped whenever the entry changes (render caches key on it).
    pub(crate) rev: u32,
    pub(crate) created_at: Option<i64>,
    pub kind: EntryKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    User {
        text: String,
    },
    /// A message sent while a turn ran (`user.message` between `turn.started` and
    /// `turn.ended`): a steer redirecting that turn.
    Steer {
        text: String,
    },
    Agent {
        text: String,
    },
    Context {
        text: String,
    },
    /// A turn ended; its outcome once the turn resource is fetched.
    TurnEnd(Box<TurnEndEntry>),
    Tool(Box<ToolCallEntry>),
    FileChange(Box<FileChangeEntry>),
    Todos {
        items: Vec<TodoItem>,
    },
    Approval(Box<ApprovalEntry>),
    Question(Box<QuestionEntry>),
    Function(Box<FunctionEntry>),
    Error {
        message: String,
    },
    Compaction {
        before: Option<u64>,
        after: Option<u64>,
    },
    Queued {
        text: String,
        position: Option<u32>,
    },
    Dequeued {
        text: String,
    },
    Artifact {
        id: Box<str>,
        path: Box<str>,
        size_bytes: Option<u64>,
    },
    Preview {
        port: Option<u16>,
        url: Option<String>,
    },
    McpUnavailable {
        name: String,
        reason: String,
    },
    RecoveryFailed {
        message: String,
    },
    /// The server cut a long replay at `from_seq`; the stream task collects the rest (§7.6).
    ReplayTruncated {
        from_seq: Option<u64>,
    },
    /// An event type this client does not know: its type and a JSON excerpt.
    Unknown {
        kind: String,
        excerpt: String,
    },
}

/// A sent message of more lines than this shows collapsed in the transcript.
pub(crate) const COLLAPSE_OVER_LINES: usize = 12;

impl EntryKind {
    /// The expand key has something to show: a diff, or the rest of a long message.
    pub(crate) fn expands(&self) -> bool {
        match self {
            EntryKind::FileChange(f) => f.diff.is_some(),
            _ => self.collapsed_lines().is_some(),
        }
    }

    /// Selecting this entry and pressing the expand key shows more than its collapsed
    /// lines: also a tool call's whole arguments and output.
    pub(crate) fn expands_when_selected(&self) -> bool {
        self.expands() || matches!(self, EntryKind::Tool(_))
    }

    /// Its second line is a header (who spoke, how a turn ended): the time goes there.
    pub(crate) fn has_header(&self) -> bool {
        matches!(
            self,
            EntryKind::User { .. }
                | EntryKind::Steer { .. }
                | EntryKind::Agent { .. }
                | EntryKind::TurnEnd(_)
        )
    }

    /// The line count of a sent message long enough to show collapsed.
    pub(crate) fn collapsed_lines(&self) -> Option<usize> {
        let EntryKind::User { text } = self else {
            return None;
        };
        let lines = memchr::memchr_iter(b'\n', text.trim_end().as_bytes()).count() + 1;
        (lines > COLLAPSE_OVER_LINES).then_some(lines)
    }
}

/// How an ended turn came out, from its resource (§13.8).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEndEntry {
    pub(crate) turn_id: String,
    /// `None` until the turn resource says how it settled.
    pub(crate) outcome: Option<TurnOutcome>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnOutcome {
    pub(crate) status: TurnStatus,
    pub(crate) elapsed_ms: Option<i64>,
    pub(crate) error: Option<String>,
}

impl TurnOutcome {
    /// How a turn came out, once its status is final.
    pub(crate) fn settled(
        status: Option<&TurnStatus>,
        created_at: Option<i64>,
        started_at: Option<i64>,
        completed_at: Option<i64>,
        error: Option<String>,
    ) -> Option<TurnOutcome> {
        let status = status
            .filter(|s| {
                matches!(
                    s,
                    TurnStatus::Completed | TurnStatus::Failed | TurnStatus::Cancelled
                )
            })?
            .clone();
        Some(TurnOutcome {
            status,
            // A turn that failed before it started ran from its creation: "after 0 s".
            elapsed_ms: completed_at
                .zip(started_at.or(created_at))
                .map(|(end, start)| (end - start).max(0)),
            error,
        })
    }

    /// How it came out, in the app's words: `completed in 2m 05s`, `failed after 0s`,
    /// `cancelled after 12s` (without the time when it is not known). The failure's
    /// reason is [`TurnOutcome::error`], for the caller to place.
    pub(crate) fn words(&self) -> String {
        self.shown_words().to_string()
    }

    /// [`TurnOutcome::words`] written where they are displayed (the Markdown export's
    /// closing line for every turn), without a string of their own.
    pub(crate) fn shown_words(&self) -> impl std::fmt::Display + '_ {
        OutcomeWords(self)
    }
}

/// [`TurnOutcome::shown_words`].
struct OutcomeWords<'a>(&'a TurnOutcome);

impl std::fmt::Display for OutcomeWords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let took = self.0.elapsed_ms.map(crate::readable::times::Duration);
        let (done, how) = match &self.0.status {
            TurnStatus::Completed => ("completed", " in "),
            TurnStatus::Cancelled => ("cancelled", " after "),
            TurnStatus::Failed => ("failed", " after "),
            other => return f.write_str(&gobare_api::text::line(&format!("{other:?}"))),
        };
        f.write_str(done)?;
        match took {
            Some(took) => {
                f.write_str(how)?;
                std::fmt::Display::fmt(&took, f)
            }
            None => Ok(()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Copy)]
pub(crate) enum CallStatus {
    Pending,
    Ok,
    Failed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallEntry {
    pub(crate) call_id: String,
    pub(crate) name: String,
    pub(crate) args: String,
    /// The whole arguments, pretty-printed (clipped), for the expanded view.
    pub(crate) args_full: String,
    pub(crate) status: CallStatus,
    pub(crate) summary: String,
    pub(crate) exit_code: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileChangeEntry {
    pub(crate) path: String,
    pub(crate) change: ChangeKind,
    pub(crate) diff: Option<String>,
    pub(crate) call_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ApprovalOutcome {
    Pending,
    Approved {
        code: Option<String>,
    },
    Denied {
        code: Option<String>,
        reason: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalEntry {
    pub(crate) call_id: String,
    pub(crate) name: String,
    pub(crate) args: String,
    pub(crate) sensitive: bool,
    pub(crate) verdict: ApprovalOutcome,
    /// Known from backfilled items only: they record the request, never its outcome.
    pub(crate) from_history: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuestionEntry {
    pub(crate) call_id: String,
    pub(crate) question: String,
    pub(crate) options: Vec<String>,
    pub(crate) answer: Option<String>,
    /// Known from backfilled items only: they record the question, never the answer.
    pub(crate) from_history: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FunctionEntry {
    pub(crate) call_id: String,
    pub(crate) name: String,
    pub(crate) args: String,
    /// `None` until `tool.resolved`; then its `success`.
    pub(crate) success: Option<bool>,
    /// It failed because its `expires_at` passed unanswered.
    pub(crate) expired: bool,
}

/// Text being streamed before the settled `agent.message` arrives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Streaming {
    pub text: String,
    pub(crate) thinking: String,
}

/// Which source an id-less entry came from, for the multiset match.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    Event,
    Item,
}

#[derive(Debug, Clone)]
pub struct Transcript {
    entries: VecDeque<Entry>,
    /// Id of `entries[0]`.
    base: u64,
    /// Id of the session's first entry: 0, unless the transcript started after history it
    /// did not replay (a restart's window), and then `None` until that history is counted.
    first_id: Option<u64>,
    /// The id the first entry after unreplayed history took.
    window_id: u64,
    /// Sum of [`entry_bytes`] over `entries`, except `touched`'s (see [`Transcript::get_mut`]).
    bytes: usize,
    /// Most bytes the entries may take.
    budget: usize,
    /// The entry handed out mutably since the last [`Transcript::settle`]: its bytes are
    /// counted again once the change is done.
    touched: Option<u64>,
    /// toolCallId → entry id, one map per kind of call.
    tools: FastMap<String, u64>,
    approvals: FastMap<String, u64>,
    questions: FastMap<String, u64>,
    functions: FastMap<String, u64>,
    /// The todo list of the current turn (later lists update it in place).
    todos: Option<u64>,
    /// Unmatched id-less entries per source: key → count.
    from_events: FastMap<u64, u32>,
    from_items: FastMap<u64, u32>,
    streaming: Option<Streaming>,
    /// Bumped on every change of the streaming text.
    streaming_rev: u64,
    /// The last event applied was an `agent.thinking` delta (a later one continues its block).
    thinking_open: bool,
    /// The events applied so far stand between a `turn.started` and its `turn.ended`: the
    /// history's own position, so a steer replayed from long ago stays a steer. Whether a
    /// turn runs now is another fact, owned by [`super::turn::TurnState`] (it also learns
    /// from the turn resources, which say how those old turns ended).
    history_inside_turn: bool,
    /// The message that starts the current (or next) turn was seen. Its `user.message` may
    /// come before or after `turn.started` (§8 leaves the order open), so only a second
    /// message inside an open turn is a steer.
    turn_asked: bool,
    /// turn id → its separator entry.
    turn_ends: FastMap<String, u64>,
    /// The seq of the event that made each entry (`None`: an item, a transient event),
    /// parallel to `entries`: where paging back reads the local event log up to.
    origins: VecDeque<Option<u64>>,
    /// The seq of the event being applied.
    applying: Option<u64>,
    /// Bytes of dropped entries read back from the local event log, allowed over the budget
    /// while the user reads them (see [`Transcript::restore_front`]).
    overdraft: usize,
    /// The messages still queued on the server.
    queue: queue::WaitingQueue,
}

impl Default for Transcript {
    fn default() -> Self {
        Transcript::with_budget(TRANSCRIPT_BUDGET_BYTES)
    }
}

impl Transcript {
    /// An empty transcript whose entries may take at most `budget` bytes (at least the
    /// newest entry is always kept).
    pub(crate) fn with_budget(budget: usize) -> Self {
        Transcript {
            entries: VecDeque::new(),
            base: 0,
            first_id: Some(0),
            window_id: 0,
            bytes: 0,
            budget,
            touched: None,
            tools: FastMap::default(),
            approvals: FastMap::default(),
            questions: FastMap::default(),
            functions: FastMap::default(),
            todos: None,
            from_events: FastMap::default(),
            from_items: FastMap::default(),
            streaming: None,
            streaming_rev: 0,
            thinking_open: false,
            history_inside_turn: false,
            turn_asked: false,
            origins: VecDeque::new(),
            applying: None,
            overdraft: 0,
            turn_ends: FastMap::default(),
            queue: queue::WaitingQueue::default(),
        }
    }

    pub fn entries(&self) -> &VecDeque<Entry> {
        &self.entries
    }

    /// The seq of the persisted event that made the oldest entry kept: the entries dropped
    /// before it came from events before it (see [`super::paging`]).
    pub(crate) fn kept_from_seq(&self) -> Option<u64> {
        self.origins.iter().flatten().next().copied()
    }

    /// Entries before the oldest one kept: dropped to stay within the budget or the entry
    /// cap, or not replayed (an upper bound until `Transcript::count_unreplayed`).
    pub fn dropped(&self) -> u64 {
        self.base - self.first_id.unwrap_or(0)
    }

    /// Whether [`Transcript::dropped`] is an exact count.
    pub(crate) fn dropped_counted(&self) -> bool {
        self.first_id.is_some()
    }

    /// Id of the oldest entry kept (of the next one, when none is).
    pub(crate) fn first_kept_id(&self) -> u64 {
        self.base
    }

    /// The transcript starts after history it did not replay: its first entry takes id
    /// `first_id`, leaving the ids below for that history's entries.
    pub(crate) fn start_after_unreplayed(&mut self, first_id: u64) {
        debug_assert!(self.entries.is_empty(), "before any entry");
        self.base = first_id;
        self.window_id = first_id;
        self.first_id = None;
    }

    /// The unreplayed history made `entries` entries: they take the ids right below the
    /// first one after it.
    pub(crate) fn count_unreplayed(&mut self, entries: u64) {
        if self.first_id.is_none() {
            self.first_id = Some(self.window_id.saturating_sub(entries).min(self.base));
        }
    }

    /// Bytes the kept entries take, as counted against the budget.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The entry with this id, if it is still kept.
    pub(crate) fn get(&self, id: u64) -> Option<&Entry> {
        let pos = id.checked_sub(self.base)?;
        self.entries.get(usize::try_from(pos).ok()?)
    }

    /// The turn the entry `id` belongs to: the first turn separator at or after it (`None`
    /// for entries of a turn that has not ended, or that are no longer kept).
    pub(crate) fn turn_after(&self, id: u64) -> Option<&str> {
        let pos = usize::try_from(id.checked_sub(self.base)?).ok()?;
        self.entries.iter().skip(pos).find_map(|e| match &e.kind {
            EntryKind::TurnEnd(t) => Some(t.turn_id.as_str()),
            _ => None,
        })
    }

    /// The id the next entry will get (= number of entries ever added).
    pub(crate) fn next_id(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    pub fn streaming(&self) -> Option<&Streaming> {
        self.streaming.as_ref()
    }

    /// Dedupe keys still waiting for a match (bounded by the entries kept).
    #[cfg(test)]
    pub(crate) fn unmatched_keys(&self) -> usize {
        self.from_events.len() + self.from_items.len()
    }

    pub(crate) fn streaming_rev(&self) -> u64 {
        self.streaming_rev
    }

    /// The tool call entry for `call_id`.
    #[cfg(test)]
    pub(crate) fn tool_call(&self, call_id: &str) -> Option<&ToolCallEntry> {
        match &self.get(*self.tools.get(call_id)?)?.kind {
            EntryKind::Tool(t) => Some(t),
            _ => None,
        }
    }

    /// The entry of the tool call, approval, question or function call `call_id`.
    pub(crate) fn entry_for_call(&self, call_id: &str) -> Option<u64> {
        [
            &self.tools,
            &self.approvals,
            &self.questions,
            &self.functions,
        ]
        .into_iter()
        .find_map(|m| m.get(call_id).copied())
    }

    /// The newest entry that expands (a file change with a diff, a long sent message) at or
    /// before entry `id` (the one the expand key means). Walks back at most `limit` entries.
    pub(crate) fn expandable_at_or_before(&self, id: u64, limit: usize) -> Option<u64> {
        let end = usize::try_from(id.checked_sub(self.base)?)
            .ok()?
            .min(self.entries.len().checked_sub(1)?);
        self.entries
            .range(..=end)
            .rev()
            .take(limit)
            .find(|e| e.kind.expands())
            .map(|e| e.id)
    }

    /// A new turn: the next todo list starts a new entry; leftover deltas are dropped.
    /// The session says these calls still wait on the user: an approval or question read
    /// back from the history reads "waiting" again instead of "outcome not in the history".
    /// Approvals asked as sensitive, known from outside the history (the last run): their
    /// entries say so now and when they are read back.
    pub(crate) fn know_sensitive(&mut self, calls: &SensitiveCalls) {
        for call_id in calls.iter() {
            if let Some(&id) = self.approvals.get(call_id)
                && let Some(entry) = self.get_mut(id)
                && let EntryKind::Approval(a) = &mut entry.kind
            {
                a.sensitive = true;
                entry.rev += 1;
            }
        }
    }

    pub(crate) fn still_waiting<'a>(&mut self, call_ids: impl Iterator<Item = &'a str>) -> bool {
        let mut changed = false;
        for call_id in call_ids {
            let ids = [self.approvals.get(call_id), self.questions.get(call_id)];
            for id in ids.into_iter().flatten().copied().collect::<Vec<_>>() {
                let Some(entry) = self.get_mut(id) else {
                    continue;
                };
                let was_history = match &mut entry.kind {
                    EntryKind::Approval(a) => std::mem::take(&mut a.from_history),
                    EntryKind::Question(q) => std::mem::take(&mut q.from_history),
                    _ => false,
                };
                if was_history {
                    entry.rev += 1;
                    changed = true;
                }
            }
        }
        changed
    }

    pub(crate) fn turn_started(&mut self) {
        self.todos = None;
        self.history_inside_turn = true;
    }

    /// The turn settled: provisional text that never got a settled message is dropped.
    pub(crate) fn turn_ended(&mut self) {
        self.history_inside_turn = false;
        self.turn_asked = false;
        if self.streaming.take().is_some() {
            self.streaming_rev += 1;
        }
    }

    /// When the oldest kept separator still waiting for its outcome was written: the turns
    /// to read go back that far.
    pub(crate) fn oldest_turn_end_without_outcome(&self) -> Option<i64> {
        self.turn_ends
            .values()
            .filter_map(|&id| self.get(id))
            .filter(|e| matches!(&e.kind, EntryKind::TurnEnd(t) if t.outcome.is_none()))
            .filter_map(|e| e.created_at)
            .min()
    }

    /// When the newest kept separator still waiting for its outcome was written.
    pub(crate) fn newest_turn_end_without_outcome(&self) -> Option<i64> {
        self.turn_ends
            .values()
            .filter_map(|&id| self.get(id))
            .filter(|e| matches!(&e.kind, EntryKind::TurnEnd(t) if t.outcome.is_none()))
            .filter_map(|e| e.created_at)
            .max()
    }

    /// The turns whose kept separator does not say yet how they ended.
    pub(crate) fn turns_without_outcome(&self) -> impl Iterator<Item = &str> + '_ {
        self.turn_ends.iter().filter_map(|(turn, &id)| {
            let entry = self.get(id)?;
            matches!(&entry.kind, EntryKind::TurnEnd(t) if t.outcome.is_none())
                .then_some(turn.as_str())
        })
    }

    /// Whether turn `turn_id`'s separator is kept.
    pub(crate) fn has_turn_end(&self, turn_id: &str) -> bool {
        self.turn_ends
            .get(turn_id)
            .is_some_and(|&id| self.get(id).is_some())
    }

    /// How turn `turn_id` came out: fills its separator once its status is final.
    pub(crate) fn turn_outcome(&mut self, turn_id: &str, outcome: TurnOutcome) -> bool {
        let Some(&id) = self.turn_ends.get(turn_id) else {
            return false;
        };
        let Some(entry) = self.get_mut(id) else {
            return false;
        };
        let EntryKind::TurnEnd(t) = &mut entry.kind else {
            return false;
        };
        if t.outcome.as_ref() == Some(&outcome) {
            return false;
        }
        t.outcome = Some(outcome);
        entry.rev += 1;
        true
    }

    /// Applies one event (persisted or transient). Returns whether anything changed.
    /// `sensitive` is the session's set of approvals asked as sensitive: read for the
    /// entries made, and added to from the events.
    pub(crate) fn apply_event(&mut self, ev: &Event, sensitive: &mut SensitiveCalls) -> bool {
        self.applying = ev.seq;
        let changed = self.apply_event_unsettled(ev, sensitive);
        self.applying = None;
        self.settle();
        changed
    }

    fn apply_event_unsettled(&mut self, ev: &Event, sensitive: &mut SensitiveCalls) -> bool {
        use gobare_api::event_family::ByFamily;
        let thinking_was_open = std::mem::take(&mut self.thinking_open);
        let at = ev.created_at;
        match ev.payload.by_family() {
            ByFamily::Turns(e) => self.apply_turns_event(at, e),
            ByFamily::Conversation(e) => self.apply_conversation_event(at, e, thinking_was_open),
            ByFamily::Work(e) => self.apply_work_event(at, e),
            ByFamily::Decisions(e) => self.apply_decisions_event(at, e, sensitive),
            ByFamily::Workspace(e) => self.apply_workspace_event(at, e),
        }
    }

    /// Drops the indices that point at an entry leaving the ring, including its unmatched
    /// dedupe key: a late copy of an entry no longer kept has nothing to cancel, and keeping
    /// the key would let the map grow with every id-less entry ever shown.
    fn forget(&mut self, entry: &Entry) {
        if let Some(k) = match_key(&entry.kind) {
            for counts in [&mut self.from_events, &mut self.from_items] {
                if let Some(n) = counts.get_mut(&k) {
                    *n -= 1;
                    if *n == 0 {
                        counts.remove(&k);
                    }
                    break;
                }
            }
            return;
        }
        let (map, call_id) = match &entry.kind {
            EntryKind::Tool(t) => (&mut self.tools, &t.call_id),
            EntryKind::Approval(a) => (&mut self.approvals, &a.call_id),
            EntryKind::Question(q) => (&mut self.questions, &q.call_id),
            EntryKind::Function(f) => (&mut self.functions, &f.call_id),
            EntryKind::TurnEnd(t) => (&mut self.turn_ends, &t.turn_id),
            _ => return,
        };
        if map.get(call_id) == Some(&entry.id) {
            map.remove(call_id);
        }
    }

    fn push(&mut self, created_at: Option<i64>, kind: EntryKind) -> u64 {
        if self.entries.len() == TRANSCRIPT_CAPACITY {
            if self.touched == Some(self.base) {
                self.count_touched();
            }
            self.drop_oldest();
        } else if self.entries.len() == self.entries.capacity() {
            // Grow by doubling but never past the cap: plain doubling would end at 131,072
            // slots for 100,000 entries, 31 % of the ring's memory never used.
            let len = self.entries.len();
            self.entries
                .reserve_exact(len.max(16).min(TRANSCRIPT_CAPACITY - len));
        }
        if self.from_events.len() > MATCH_KEYS_MAX {
            // Items are loaded at attach; this late, old event keys will not be matched.
            self.from_events.clear();
        }
        let id = self.next_id();
        let entry = Entry {
            id,
            rev: 0,
            created_at,
            kind,
        };
        self.bytes += entry_bytes(&entry);
        self.entries.push_back(entry);
        self.origins.push_back(self.applying);
        id
    }

    /// Pushes an id-less entry unless the other source already showed it.
    fn push_keyed(&mut self, from: Source, at: Option<i64>, kind: EntryKind) -> bool {
        let Some(k) = match_key(&kind) else {
            self.push(at, kind);
            return true;
        };
        let (mine, theirs) = match from {
            Source::Event => (&mut self.from_events, &mut self.from_items),
            Source::Item => (&mut self.from_items, &mut self.from_events),
        };
        if let Some(n) = theirs.get_mut(&k) {
            *n -= 1;
            if *n == 0 {
                theirs.remove(&k);
            }
            return false;
        }
        *mine.entry(k).or_insert(0) += 1;
        self.push(at, kind);
        true
    }

    fn stream(&mut self, field: fn(&mut Streaming) -> &mut String, delta: &str) -> bool {
        if delta.is_empty() {
            return false;
        }
        let buf = field(self.streaming.get_or_insert_with(Streaming::default));
        if buf.len() + delta.len() > STREAM_MAX {
            // Keep the newest half: the view shows the tail, and the settled message
            // replaces all of it anyway.
            let mut cut = buf.len() / 2;
            while !buf.is_char_boundary(cut) {
                cut += 1;
            }
            buf.drain(..cut);
        }
        buf.push_str(delta);
        self.streaming_rev += 1;
        true
    }

    fn tool_call_seen(&mut self, at: Option<i64>, call_id: &str, name: &str, args: &Value) -> u64 {
        if let Some(&id) = self.tools.get(call_id)
            && let Some(entry) = self.get_mut(id)
        {
            if let EntryKind::Tool(t) = &mut entry.kind {
                if t.name.is_empty() {
                    t.name = name.to_string();
                }
                if t.args.is_empty() {
                    t.args = short_args(args, ARGS_MAX);
                    t.args_full = full_args(args);
                }
            }
            entry.rev += 1;
            return id;
        }
        let id = self.push(
            at,
            EntryKind::Tool(Box::new(ToolCallEntry {
                call_id: call_id.to_string(),
                name: name.to_string(),
                args: short_args(args, ARGS_MAX),
                args_full: full_args(args),
                status: CallStatus::Pending,
                summary: String::new(),
                exit_code: None,
            })),
        );
        self.tools.insert(call_id.to_string(), id);
        id
    }

    fn tool_result_seen(
        &mut self,
        at: Option<i64>,
        call_id: &str,
        name: &str,
        status: CallStatus,
        summary: &str,
        exit_code: Option<i64>,
    ) {
        let id = self.tool_call_seen(at, call_id, name, &Value::Null);
        if let Some(entry) = self.get_mut(id)
            && let EntryKind::Tool(t) = &mut entry.kind
        {
            t.status = status;
            t.summary = clip(summary, SUMMARY_MAX);
            t.exit_code = exit_code.or(t.exit_code);
        }
    }

    fn approval_seen(
        &mut self,
        at: Option<i64>,
        call_id: &str,
        name: &str,
        args: &Value,
        sensitive: bool,
        calls: &mut SensitiveCalls,
    ) -> u64 {
        let sensitive = calls.note(call_id, sensitive);
        if let Some(&id) = self.approvals.get(call_id)
            && let Some(entry) = self.get_mut(id)
        {
            if let EntryKind::Approval(a) = &mut entry.kind {
                if a.name.is_empty() {
                    a.name = name.to_string();
                }
                if a.args.is_empty() {
                    a.args = short_args(args, ARGS_MAX);
                }
                a.sensitive |= sensitive;
            }
            entry.rev += 1;
            return id;
        }
        let id = self.push(
            at,
            EntryKind::Approval(Box::new(ApprovalEntry {
                call_id: call_id.to_string(),
                name: name.to_string(),
                args: short_args(args, ARGS_MAX),
                sensitive,
                verdict: ApprovalOutcome::Pending,
                from_history: false,
            })),
        );
        self.approvals.insert(call_id.to_string(), id);
        id
    }

    fn question_seen(&mut self, at: Option<i64>, call_id: &str, question: &str) -> u64 {
        if let Some(&id) = self.questions.get(call_id)
            && let Some(entry) = self.get_mut(id)
        {
            if let EntryKind::Question(q) = &mut entry.kind
                && q.question.is_empty()
            {
                q.question = question.to_string();
            }
            entry.rev += 1;
            return id;
        }
        let id = self.push(
            at,
            EntryKind::Question(Box::new(QuestionEntry {
                call_id: call_id.to_string(),
                question: question.to_string(),
                options: Vec::new(),
                answer: None,
                from_history: false,
            })),
        );
        self.questions.insert(call_id.to_string(), id);
        id
    }

    /// The function call `call_id` expired unanswered.
    pub(crate) fn function_expired(&mut self, call_id: &str) {
        if let Some(&id) = self.functions.get(call_id)
            && let Some(entry) = self.get_mut(id)
        {
            if let EntryKind::Function(f) = &mut entry.kind {
                f.expired = true;
            }
            entry.rev += 1;
        }
    }

    fn function_seen(
        &mut self,
        at: Option<i64>,
        call_id: &str,
        name: &str,
        args: &Value,
        success: Option<bool>,
    ) {
        if let Some(&id) = self.functions.get(call_id)
            && let Some(entry) = self.get_mut(id)
        {
            if let EntryKind::Function(f) = &mut entry.kind {
                if f.name.is_empty() {
                    f.name = name.to_string();
                }
                if f.args.is_empty() {
                    f.args = short_args(args, ARGS_MAX);
                }
                if success.is_some() {
                    f.success = success;
                }
            }
            entry.rev += 1;
            return;
        }
        let id = self.push(
            at,
            EntryKind::Function(Box::new(FunctionEntry {
                call_id: call_id.to_string(),
                name: name.to_string(),
                args: short_args(args, ARGS_MAX),
                success,
                expired: false,
            })),
        );
        self.functions.insert(call_id.to_string(), id);
    }
}

/// The dedupe key of an id-less entry (matched by kind and text); `None` for entries keyed
/// by `toolCallId` or never duplicated.
fn match_key(kind: &EntryKind) -> Option<u64> {
    Some(match kind {
        EntryKind::User { text } | EntryKind::Steer { text } => key("user", text),
        EntryKind::Agent { text } => key("agent", text),
        EntryKind::Context { text } => key("context", text),
        EntryKind::Error { message } => key("error", message),
        EntryKind::McpUnavailable { name, reason } => key(name, reason),
        EntryKind::FileChange(f) => key(f.change.as_str(), &f.path),
        _ => return None,
    })
}

/// A call's whole arguments, pretty-printed and clipped ([`ARGS_FULL_MAX`]).
fn full_args(args: &Value) -> String {
    if args.is_null() {
        return String::new();
    }
    let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
    clip(&pretty, ARGS_FULL_MAX)
}
