//! The current turn and the last few. Status comes from the Turn resource (§13.8);
//! `turn.started` / `turn.ended` only say which turn is current and when to fetch it.

use gobare_api::model::{ArtifactsState, Turn, TurnStatus};
use std::collections::{HashMap, VecDeque};

/// How many settled turns the pane lists.
pub(crate) const RECENT_TURNS: usize = 5;

/// What the turn pane says about a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnPhase {
    /// Accepted, waiting behind another turn (`started_at == null`).
    Queued,
    Working,
    /// Parked on a required action (the session's `required_actions` is non-empty).
    WaitingOnYou,
    /// `turn.ended` arrived; the outcome is being fetched.
    Settling,
    Completed,
    Failed,
    Cancelled,
    /// A status value this client does not know.
    Other(String),
}

impl TurnPhase {
    pub(crate) fn label(&self) -> &str {
        match self {
            TurnPhase::Queued => "queued",
            TurnPhase::Working => "working",
            TurnPhase::WaitingOnYou => "waiting on you",
            TurnPhase::Settling => "settling",
            TurnPhase::Completed => "completed",
            TurnPhase::Failed => "failed",
            TurnPhase::Cancelled => "cancelled",
            TurnPhase::Other(s) => s,
        }
    }

    /// Whether the clock runs (elapsed time is shown ticking).
    pub(crate) fn is_running(&self) -> bool {
        matches!(
            self,
            TurnPhase::Working | TurnPhase::WaitingOnYou | TurnPhase::Queued
        )
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TurnInfo {
    pub(crate) id: String,
    /// From the resource; `None` until it has been fetched.
    pub(crate) status: Option<TurnStatus>,
    pub(crate) created_at: Option<i64>,
    pub(crate) started_at: Option<i64>,
    pub(crate) completed_at: Option<i64>,
    pub(crate) artifacts: Option<ArtifactsState>,
    pub(crate) artifacts_skipped: usize,
    pub(crate) error: Option<String>,
    /// `turn.ended` was seen (the outcome may not be fetched yet).
    pub(crate) ended_seen: bool,
    /// When `turn.ended` said it ended (unix ms): the clock stops there even before the
    /// outcome is read.
    pub(crate) ended_at: Option<i64>,
    /// What the turn was asked, as the message that started it (its first line).
    pub(crate) asked: Option<String>,
    /// Tool calls made so far.
    pub(crate) steps: u32,
    /// The tool call without a result yet: its name and a short excerpt of its arguments.
    pub(crate) tool_in_flight: Option<(String, String)>,
    /// The last todo list: done, total and the first item not done.
    pub(crate) todos: Option<TodoProgress>,
}

/// How far a turn's todo list is.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TodoProgress {
    pub(crate) done: usize,
    pub(crate) total: usize,
    pub(crate) next: Option<String>,
}

impl TurnInfo {
    fn new(id: &str) -> Self {
        TurnInfo {
            id: id.to_string(),
            ..TurnInfo::default()
        }
    }

    fn absorb(&mut self, t: &Turn) {
        self.status = Some(t.status.clone());
        self.created_at = Some(t.created_at);
        // A fetched resource can lag the event; keep the start we already know.
        self.started_at = t.started_at.or(self.started_at);
        self.completed_at = t.completed_at;
        self.artifacts = t.artifacts.clone();
        self.artifacts_skipped = t.artifacts_skipped.len();
        self.error = t.error_text();
    }

    /// Its status is final: completed, failed or cancelled.
    pub(crate) fn is_settled(&self) -> bool {
        matches!(
            self.status,
            Some(TurnStatus::Completed | TurnStatus::Failed | TurnStatus::Cancelled)
        )
    }

    pub(crate) fn phase(&self, waiting_on_you: bool) -> TurnPhase {
        match &self.status {
            Some(TurnStatus::Completed) => TurnPhase::Completed,
            Some(TurnStatus::Failed) => TurnPhase::Failed,
            Some(TurnStatus::Cancelled) => TurnPhase::Cancelled,
            Some(TurnStatus::Other(s)) => TurnPhase::Other(s.clone()),
            Some(TurnStatus::Working) | None if self.ended_seen => TurnPhase::Settling,
            Some(TurnStatus::Working) | None
                if self.started_at.is_none() && self.status.is_some() =>
            {
                TurnPhase::Queued
            }
            _ if waiting_on_you => TurnPhase::WaitingOnYou,
            _ => TurnPhase::Working,
        }
    }

    /// Milliseconds the turn has run: to `completed_at` once settled, to its `turn.ended`
    /// once that was seen, else to `now_ms`. A turn that ended never runs on with the clock.
    pub(crate) fn elapsed_ms(&self, now_ms: Option<i64>) -> Option<i64> {
        let start = self.started_at?;
        let end = match (self.completed_at, self.ended_at) {
            (Some(done), _) | (None, Some(done)) => done,
            (None, None) if self.ended_seen => return None,
            (None, None) => now_ms?,
        };
        Some((end - start).max(0))
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TurnState {
    current: Option<TurnInfo>,
    /// Newest first.
    recent: VecDeque<TurnInfo>,
    queue_len: u32,
    /// Turns read from the server that have not started (a queued message's), oldest
    /// first: they wait here instead of replacing the turn that runs.
    waiting: VecDeque<TurnInfo>,
    /// The last user message's first line, given to the next turn that starts.
    last_asked: Option<String>,
    /// The turns of the newest page read, by id: a turn replayed after the page arrived
    /// starts from what the server said of it (a long history replays turns that ended
    /// long ago, each through the pane).
    known: HashMap<String, TurnInfo>,
}

impl TurnState {
    pub(crate) fn current(&self) -> Option<&TurnInfo> {
        self.current.as_ref()
    }

    pub(crate) fn recent(&self) -> &VecDeque<TurnInfo> {
        &self.recent
    }

    /// Messages waiting behind the running turn, from `message.queued` / `dequeued`.
    pub(crate) fn queue_len(&self) -> u32 {
        self.queue_len
    }

    pub(crate) fn started(&mut self, turn_id: &str, at: Option<i64>) {
        if let Some(c) = self.current.as_mut().filter(|c| c.id == turn_id) {
            c.started_at = c.started_at.or(at);
            if c.asked.is_none() {
                c.asked = self.last_asked.take();
            }
            return;
        }
        // Known from a fetch already (e.g. replaying history after attach, or waiting in
        // the queue): promote it.
        let known = self
            .recent
            .iter()
            .position(|r| r.id == turn_id)
            .and_then(|i| self.recent.remove(i))
            .or_else(|| {
                let i = self.waiting.iter().position(|w| w.id == turn_id)?;
                self.waiting.remove(i)
            });
        let mut info = known.unwrap_or_else(|| self.read_before(turn_id));
        info.started_at = info.started_at.or(at);
        if info.asked.is_none() {
            info.asked = self.last_asked.take();
        }
        self.make_current(info);
    }

    pub(crate) fn ended(&mut self, turn_id: &str, at: Option<i64>) {
        match self.find_mut(turn_id) {
            Some(t) => {
                t.ended_seen = true;
                t.ended_at = t.ended_at.or(at);
            }
            None => {
                let info = TurnInfo {
                    ended_seen: true,
                    ended_at: at,
                    ..self.read_before(turn_id)
                };
                self.make_current(info);
            }
        }
    }

    /// What the newest page read said of a turn not otherwise known (nothing but its id
    /// when it was not on it).
    fn read_before(&self, turn_id: &str) -> TurnInfo {
        self.known
            .get(turn_id)
            .cloned()
            .unwrap_or_else(|| TurnInfo::new(turn_id))
    }

    /// The newest page of turns (`GET …/turns?order=desc`): each absorbed, and kept for the
    /// turns replayed after it.
    pub(crate) fn absorb_page(&mut self, page: &[Turn]) {
        let mut page: Vec<&Turn> = page.iter().collect();
        page.sort_by_key(|t| t.created_at);
        self.known.clear();
        // The server's queue is its turns that have not started (§9.2): a queued message
        // whose turn failed before it started is never dequeued on the stream.
        let waiting = page
            .iter()
            .filter(|t| t.status == TurnStatus::Working && t.started_at.is_none())
            .count();
        self.queue_len = u32::try_from(waiting).unwrap_or(u32::MAX);
        // A waiting turn that settled without starting (failed, cancelled) waits no more.
        self.waiting.retain(|w| {
            !page
                .iter()
                .any(|t| t.id == w.id && t.status != TurnStatus::Working && t.started_at.is_none())
        });
        for t in page {
            self.absorb(t);
            let mut info = TurnInfo::new(&t.id);
            info.absorb(t);
            self.known.insert(t.id.clone(), info);
        }
    }

    /// Whether the outcome of turn `id` is known to be final.
    pub(crate) fn settled(&self, id: &str) -> bool {
        self.find(id)
            .or_else(|| self.known.get(id))
            .is_some_and(TurnInfo::is_settled)
    }

    /// A user message: what the next turn to start was asked.
    pub(crate) fn user_message(&mut self, text: &str) {
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default();
        // The first 120 chars, copied at once.
        let end = first
            .char_indices()
            .nth(120)
            .map_or(first.len(), |(at, _)| at);
        self.last_asked = Some(first[..end].to_string());
    }

    /// `agent.tool_call` in the current turn.
    pub(crate) fn tool_called(&mut self, name: &str, args: String) {
        if let Some(c) = self.current.as_mut() {
            c.steps += 1;
            c.tool_in_flight = Some((name.to_string(), args));
        }
    }

    /// `agent.tool_result` in the current turn.
    pub(crate) fn tool_done(&mut self) {
        if let Some(c) = self.current.as_mut() {
            c.tool_in_flight = None;
        }
    }

    /// `agent.todos` in the current turn.
    pub(crate) fn todos(&mut self, progress: TodoProgress) {
        if let Some(c) = self.current.as_mut() {
            c.todos = Some(progress);
        }
    }

    pub(crate) fn queued(&mut self, position: Option<u32>) {
        self.queue_len = position.map_or(self.queue_len + 1, |p| p.max(self.queue_len));
    }

    pub(crate) fn dequeued(&mut self) {
        self.queue_len = self.queue_len.saturating_sub(1);
    }

    /// The session was read ready for input: nothing waits in its queue.
    pub(crate) fn queue_empty(&mut self) {
        self.queue_len = 0;
        self.waiting.clear();
    }

    /// A fetched turn: updates the one it names, or becomes current when newer.
    pub(crate) fn absorb(&mut self, t: &Turn) {
        if let Some(info) = self.find_mut(&t.id) {
            info.absorb(t);
            return;
        }
        let newer = self
            .current
            .as_ref()
            .is_none_or(|c| c.created_at.is_some_and(|at| t.created_at > at));
        let mut info = TurnInfo::new(&t.id);
        info.absorb(t);
        let not_started = t.started_at.is_none() && t.status == TurnStatus::Working;
        let current_runs = self
            .current
            .as_ref()
            .is_some_and(|c| c.started_at.is_some() && c.completed_at.is_none() && !c.ended_seen);
        if newer && not_started && current_runs {
            // A queued message's turn: the running one stays current.
            if !self.waiting.iter().any(|w| w.id == t.id) {
                self.waiting.push_back(info);
            }
            return;
        }
        if newer {
            self.make_current(info);
        } else {
            let pos = self
                .recent
                .iter()
                .position(|r| r.created_at.is_some_and(|at| at < t.created_at))
                .unwrap_or(self.recent.len());
            self.recent.insert(pos, info);
            self.recent.truncate(RECENT_TURNS);
        }
    }

    /// The turn whose artifacts are still being published (poll it until settled).
    pub(crate) fn artifacts_pending(&self) -> Option<&str> {
        let c = self.current.as_ref()?;
        let settled = matches!(
            c.status,
            Some(TurnStatus::Completed | TurnStatus::Failed | TurnStatus::Cancelled)
        );
        (settled && matches!(c.artifacts, None | Some(ArtifactsState::Pending)))
            .then_some(c.id.as_str())
    }

    /// The turn with this id, current or recent.
    pub(crate) fn find(&self, id: &str) -> Option<&TurnInfo> {
        self.current
            .iter()
            .chain(self.recent.iter())
            .find(|t| t.id == id)
    }

    fn find_mut(&mut self, id: &str) -> Option<&mut TurnInfo> {
        if self.current.as_ref().is_some_and(|c| c.id == id) {
            return self.current.as_mut();
        }
        if let Some(i) = self.waiting.iter().position(|w| w.id == id) {
            return self.waiting.get_mut(i);
        }
        self.recent.iter_mut().find(|r| r.id == id)
    }

    fn make_current(&mut self, info: TurnInfo) {
        if let Some(old) = self.current.replace(info) {
            self.recent.push_front(old);
            self.recent.truncate(RECENT_TURNS);
        }
    }
}

#[cfg(test)]
mod tests;
