//! The fleet model: one row per session, built from `GET /v1/sessions` pages and the org
//! stream's events applied one by one. Pure: no IO, no clock.
//!
//! The stream says what changed; a few facts only the session resource holds (a turn's
//! outcome, the title and parent of a session first seen on the stream) are asked for
//! through [`FleetModel::take_refreshes`].

use std::collections::{HashMap, HashSet};

use super::reads::{TodosFound, TurnsRead};
use super::trouble::Trouble;
use super::waits::FleetWaits;
use crate::session::attention::{Attention, Needs};
use gobare_api::model::{
    Event, EventPayload, RequiredActionKind, Session, SessionStatus, TurnStatus, WorkspaceState,
};
use gobare_api::text;

/// Characters kept of a title or first message.
const LABEL_CHARS: usize = 200;

/// One session as the fleet shows it. Every string is sanitized to one line.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRow {
    pub id: String,
    pub title: Option<String>,
    pub first_message: Option<String>,
    pub status: SessionStatus,
    /// What it waits on, by call id (from `required_actions`, then the stream).
    pub waiting: Vec<(String, Needs)>,
    pub parent: Option<String>,
    pub workspace: Option<WorkspaceState>,
    /// When the current turn started (stream time), while one runs.
    pub turn_started_at: Option<i64>,
    /// The current turn's todo list: (done, total).
    pub todos: Option<(u32, u32)>,
    /// Whether the stream showed the current turn start (else its start and todos were
    /// read back: the turn began before the fleet opened).
    pub turn_seen_live: bool,
    /// Messages queued behind the running turn.
    pub queued: u32,
    /// Artifacts published while the fleet watched, plus those counted on a lazy read.
    pub artifacts: u32,
    /// Sandbox seconds, once read (lazily, for rows on screen).
    pub sandbox_seconds: Option<u64>,
    /// When the server counted [`FleetRow::sandbox_seconds`] (usage's `as_of`, Unix ms):
    /// a running workspace's figure counts on from it.
    pub usage_as_of: Option<i64>,
    pub created_at: i64,
    /// The latest of `updated_at` and the stream's event times.
    pub last_activity: i64,
    /// Whether the session resource has been read (a row first seen on the stream has not).
    pub known: bool,
    /// The session's labels (`metadata`), as last read.
    pub labels: std::collections::BTreeMap<String, String>,
    /// The model's generation when something this row shows last changed: views keep what
    /// they drew of the row until it moves on.
    pub version: u64,
}

impl FleetRow {
    fn placeholder(id: &str, at: i64) -> FleetRow {
        FleetRow {
            id: id.to_string(),
            title: None,
            first_message: None,
            status: SessionStatus::Idle,
            waiting: Vec::new(),
            parent: None,
            workspace: None,
            turn_started_at: None,
            todos: None,
            turn_seen_live: false,
            queued: 0,
            artifacts: 0,
            sandbox_seconds: None,
            usage_as_of: None,
            created_at: at,
            last_activity: at,
            known: false,
            labels: std::collections::BTreeMap::new(),
            version: 0,
        }
    }

    /// What it waits on most urgently: a person's decision before a function's result.
    pub fn needs(&self) -> Option<Needs> {
        let rank = |n: &Needs| match n {
            Needs::Approval => 0,
            Needs::Question => 1,
            Needs::FunctionCall => 2,
        };
        self.waiting.iter().map(|(_, n)| *n).min_by_key(rank)
    }

    /// The attention rank, as `session::attention` ranks a session resource.
    pub fn attention(&self) -> Attention {
        if self.status == SessionStatus::RequiresAction || !self.waiting.is_empty() {
            return Attention::NeedsYou;
        }
        if self.status == SessionStatus::Failed
            || self.workspace == Some(WorkspaceState::RecoveryFailed)
        {
            return Attention::Failed;
        }
        match self.status {
            SessionStatus::Working => Attention::Working,
            _ => Attention::Idle,
        }
    }

    /// What a notification says when the session comes to need the user: its name and
    /// what it waits on ("Nightly: needs you: approval"). Sanitized, one line.
    pub fn needs_you_line(&self) -> Option<String> {
        let needs = self.needs()?;
        let name = self.label().unwrap_or("a session");
        Some(format!(
            "{}: needs you: {}",
            text::one_line(name, 60),
            needs.as_str().replace('_', " ")
        ))
    }

    /// What a notification says when one of the session's turns failed ("Nightly: turn
    /// failed"). Sanitized, one line.
    pub fn turn_failed_line(&self) -> String {
        let name = self.label().unwrap_or("a session");
        format!("{}: turn failed", text::one_line(name, 60))
    }

    /// The title, else the first message; `None` when neither is known yet.
    pub fn label(&self) -> Option<&str> {
        self.title.as_deref().or(self.first_message.as_deref())
    }
}

/// What applying something changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Applied {
    /// Something a row shows changed (a frame is worth drawing).
    pub visible: bool,
    /// A session needs the user now that did not before (worth a notification).
    pub newly_needs_you: bool,
}

/// Every session in the fleet, by id.
#[derive(Debug)]
pub struct FleetModel {
    /// Tells this model from another (with [`FleetModel::generation`], a cache key).
    instance: u64,
    rows: HashMap<String, FleetRow>,
    /// Sessions whose resource should be read again.
    refresh: HashSet<String>,
    /// Bumped on every visible change; views cache on it.
    generation: u64,
    /// Whether the first complete listing has arrived.
    loaded: bool,
    /// What the user should know about how the fleet is kept live (unsanitized).
    note: Option<String>,
    /// What keeps the fleet from knowing its sessions.
    trouble: Option<Trouble>,
    /// Sessions whose running turn's todos were asked of a replay (once each).
    todos_asked: HashSet<String>,
    /// What each session waits on, in detail, and its workspace clock (the inbox's).
    waits: FleetWaits,
    /// The org stream's events while the person is away, for the digest.
    absence: Option<crate::away::fleet_record::AbsenceRecord>,
    /// The last persisted seq applied: where a replay of what the fleet missed starts.
    org_cursor: Option<u64>,
}

/// Server text as one short line, every unsafe character made visible (`␛`).
fn label_text(raw: &str) -> String {
    let joined = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = joined.chars().take(LABEL_CHARS).collect();
    text::line(&cut).into_owned()
}

fn title_of(session: &Session) -> Option<String> {
    let title = label_text(session.title.as_deref()?);
    (!title.trim().is_empty()).then_some(title)
}

fn needs_of(kind: &RequiredActionKind) -> Option<Needs> {
    match kind {
        RequiredActionKind::Approval => Some(Needs::Approval),
        RequiredActionKind::Question => Some(Needs::Question),
        RequiredActionKind::FunctionCall => Some(Needs::FunctionCall),
        RequiredActionKind::Other(_) => None,
    }
}

/// Tells models apart: versions of rows and of the whole model are only comparable within one.
fn next_instance() -> u64 {
    static INSTANCES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    INSTANCES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Clone for FleetModel {
    /// A copy is another model: what a view drew of one is not reused for the other.
    fn clone(&self) -> Self {
        FleetModel {
            instance: next_instance(),
            rows: self.rows.clone(),
            refresh: self.refresh.clone(),
            generation: self.generation,
            loaded: self.loaded,
            note: self.note.clone(),
            trouble: self.trouble.clone(),
            todos_asked: self.todos_asked.clone(),
            waits: self.waits.clone(),
            absence: self.absence.clone(),
            org_cursor: self.org_cursor,
        }
    }
}

impl Default for FleetModel {
    fn default() -> Self {
        FleetModel::new()
    }
}

impl FleetModel {
    pub fn new() -> FleetModel {
        FleetModel {
            instance: next_instance(),
            rows: HashMap::new(),
            refresh: HashSet::new(),
            generation: 0,
            loaded: false,
            note: None,
            trouble: None,
            todos_asked: HashSet::new(),
            waits: FleetWaits::default(),
            absence: None,
            org_cursor: None,
        }
    }

    /// Which model this is and how many visible changes it has had: equal versions show
    /// the same rows.
    pub fn version(&self) -> (u64, u64) {
        (self.instance, self.generation)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&FleetRow> {
        self.rows.get(id)
    }

    pub fn rows(&self) -> impl Iterator<Item = &FleetRow> {
        self.rows.values()
    }

    /// How many sessions need the user: the one count every view and notification says.
    pub fn needing_you(&self) -> usize {
        self.rows
            .values()
            .filter(|r| r.attention() == Attention::NeedsYou)
            .count()
    }

    /// Whether the first complete listing has arrived.
    pub fn is_loaded(&self) -> bool {
        self.loaded
    }

    /// A note on how the fleet is kept live (e.g. polling because the stream was refused).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    pub fn set_note(&mut self, note: Option<String>) -> Applied {
        let visible = self.note != note;
        self.note = note;
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// What keeps the fleet from knowing its sessions (unreachable, refused), if anything.
    pub fn trouble(&self) -> Option<&Trouble> {
        self.trouble.as_ref()
    }

    pub fn set_trouble(&mut self, trouble: Option<Trouble>) -> Applied {
        let visible = self.trouble != trouble;
        self.trouble = trouble;
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// What each session waits on, in detail, and its workspace clock.
    pub fn waits(&self) -> &FleetWaits {
        &self.waits
    }

    pub(crate) fn waits_mut(&mut self) -> &mut FleetWaits {
        &mut self.waits
    }

    /// The person went away at `since_ms`: what the stream brings from now is kept for
    /// the digest (an absence already begun goes on).
    pub(crate) fn start_absence(&mut self, since_ms: i64) {
        if self.absence.is_none() {
            self.absence = Some(crate::away::fleet_record::AbsenceRecord::new(since_ms));
        }
    }

    /// The absence as kept, ending it.
    pub(crate) fn take_absence(&mut self) -> Option<crate::away::fleet_record::AbsenceRecord> {
        self.absence.take()
    }

    /// The absence being kept, if any (the fleet's turn reads add their outcomes).
    pub(crate) fn absence_mut(&mut self) -> Option<&mut crate::away::fleet_record::AbsenceRecord> {
        self.absence.as_mut()
    }

    /// The last persisted seq of the org stream applied.
    pub(crate) fn org_cursor(&self) -> Option<u64> {
        self.org_cursor
    }

    /// Session `id`'s usage: its workspace's running time as of `as_of`, for the clock of
    /// a workspace started before the fleet opened (a paused one is not running).
    pub fn know_usage(&mut self, id: &str, sandbox_seconds: u64, as_of: i64) -> Applied {
        let running = self
            .rows
            .get(id)
            .is_none_or(|r| r.workspace != Some(WorkspaceState::Paused));
        let ran_ms = i64::try_from(sandbox_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        let mut visible = self.waits.know_usage(id, ran_ms, as_of, running);
        if let Some(row) = self.rows.get_mut(id)
            && (row.usage_as_of, row.sandbox_seconds) != (Some(as_of), Some(sandbox_seconds))
        {
            row.usage_as_of = Some(as_of);
            row.sandbox_seconds = Some(sandbox_seconds);
            row.version = self.generation + 1;
            visible = true;
        }
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// The server answers no usage for session `id`.
    pub fn no_usage(&mut self, id: &str) -> Applied {
        let visible = self.waits.no_usage(id);
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// The stream skipped events: the workspace clocks are no longer whole.
    pub fn history_gap(&mut self) {
        self.waits.gap();
    }

    /// Changes with every visible change.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn changed(&mut self, applied: Applied) -> Applied {
        if applied.visible {
            self.generation += 1;
        }
        applied
    }

    /// A session resource (from a list page or a read): it is authoritative for what it
    /// holds, unless the stream has already said something newer about the session.
    pub fn apply_session(&mut self, session: &Session) -> Applied {
        let id = session.id.clone();
        let before = self.rows.get(&id).cloned();
        let row = self
            .rows
            .entry(id.clone())
            .or_insert_with(|| FleetRow::placeholder(&id, session.created_at));
        let was_waiting = before.as_ref().is_some_and(|r| !r.waiting.is_empty());
        row.title = title_of(session);
        row.parent = session
            .parent_session_id
            .as_deref()
            .map(|p| text::one_line(p, 64));
        row.created_at = session.created_at;
        row.labels = crate::sessions::labels::of(session);
        row.known = true;
        // An event newer than this copy of the session wins: the copy may predate it.
        let current =
            session.updated_at >= row.last_activity || before.as_ref().is_none_or(|r| !r.known);
        if current {
            row.status = session.status.clone();
            row.waiting = session
                .required_actions
                .iter()
                .filter_map(|a| Some((a.call_id.clone(), needs_of(&a.kind)?)))
                .collect();
            if session.environment.state.is_some() {
                row.workspace = session.environment.state.clone();
            }
            if row.status != SessionStatus::Working && row.waiting.is_empty() {
                row.turn_started_at = None;
            }
        }
        row.last_activity = row.last_activity.max(session.updated_at);
        let mut visible = before.as_ref() != Some(row);
        if visible {
            row.version = self.generation + 1;
        }
        let newly_needs_you = !was_waiting && !row.waiting.is_empty();
        visible |= self.waits.apply_session(session, current);
        self.refresh.remove(&id);
        self.changed(Applied {
            visible,
            newly_needs_you,
        })
    }

    /// A complete listing: sessions not in it are gone (deleted while listed).
    pub fn apply_full_list(&mut self, sessions: &[Session]) -> Applied {
        let listed: HashSet<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
        let before = self.rows.len();
        self.rows
            .retain(|id, row| listed.contains(id.as_str()) || !row.known);
        let rows = &self.rows;
        self.waits.retain(|id| rows.contains_key(id));
        let mut applied = Applied {
            visible: self.rows.len() != before || !self.loaded,
            newly_needs_you: false,
        };
        for session in sessions {
            let one = self.apply_session(session);
            applied.visible |= one.visible;
            applied.newly_needs_you |= one.newly_needs_you;
        }
        self.loaded = true;
        self.changed(applied)
    }

    /// The session is gone (404 on a read, or deleted here).
    pub fn remove(&mut self, id: &str) -> Applied {
        self.refresh.remove(id);
        self.todos_asked.remove(id);
        self.waits.remove(id);
        let visible = self.rows.remove(id).is_some();
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// The session's first message, read for an untitled session.
    pub fn set_first_message(&mut self, id: &str, message: &str) -> Applied {
        let Some(row) = self.rows.get_mut(id) else {
            return Applied::default();
        };
        let message = label_text(message);
        let visible = row.first_message.as_deref() != Some(message.as_str());
        row.first_message = Some(message);
        if visible {
            row.version = self.generation + 1;
        }
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// Sandbox seconds and artifacts counted by a lazy read.
    pub fn set_details(
        &mut self,
        id: &str,
        sandbox_seconds: Option<u64>,
        artifacts: Option<u32>,
    ) -> Applied {
        let Some(row) = self.rows.get_mut(id) else {
            return Applied::default();
        };
        let before = (row.sandbox_seconds, row.artifacts);
        if sandbox_seconds.is_some() {
            row.sandbox_seconds = sandbox_seconds;
        }
        if let Some(n) = artifacts {
            row.artifacts = row.artifacts.max(n);
        }
        let visible = before != (row.sandbox_seconds, row.artifacts);
        if visible {
            row.version = self.generation + 1;
        }
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// Whether `id` runs a turn (or waits inside one) whose start the fleet has not seen:
    /// it was under way before the org stream opened.
    pub fn lacks_turn_clock(&self, id: &str) -> bool {
        self.rows.get(id).is_some_and(|row| {
            row.turn_started_at.is_none()
                && (row.status == SessionStatus::Working
                    || row.status == SessionStatus::RequiresAction
                    || !row.waiting.is_empty())
        })
    }

    /// The start of the turn `id` runs, read from its turns: the clock shows at once
    /// instead of after its next turn starts. A start learnt from the stream is kept.
    pub fn set_turn_started(&mut self, id: &str, started_at: i64) -> Applied {
        let visible = self.lacks_turn_clock(id);
        if let Some(row) = self.rows.get_mut(id).filter(|_| visible) {
            row.turn_started_at = Some(started_at);
            row.version = self.generation + 1;
        }
        self.changed(Applied {
            visible,
            newly_needs_you: false,
        })
    }

    /// What a page of the session's turns says: the queue behind the running turn, the
    /// running turn's start when the fleet has not seen it, and — nothing running, queued
    /// or waiting — whether the last turn failed (the session's `failed` status).
    pub fn set_turns(&mut self, id: &str, read: &TurnsRead) -> Applied {
        let mut applied = Applied::default();
        if let Some(started) = read.running_since {
            applied.visible |= self.set_turn_started(id, started).visible;
        }
        if let Some(row) = self.rows.get_mut(id)
            && read.running_since.is_none()
            && read.queued == 0
            && row.waiting.is_empty()
            && matches!(row.status, SessionStatus::Idle | SessionStatus::Failed)
            && let Some((_, last)) = read.ended.first()
        {
            let status = if *last == TurnStatus::Failed {
                SessionStatus::Failed
            } else {
                SessionStatus::Idle
            };
            if row.status != status {
                row.status = status;
                row.version = self.generation + 1;
                applied.visible = true;
                applied = self.changed(applied);
            }
        }
        if let Some(row) = self.rows.get_mut(id)
            && row.queued != read.queued
        {
            row.queued = read.queued;
            row.version = self.generation + 1;
            applied.visible = true;
            applied = self.changed(applied);
        }
        applied
    }

    /// Whether the running turn's todo list is to be replayed: the turn began before the
    /// fleet opened (its start was read, not seen), no list came since, and none was asked.
    /// Asking is remembered: one replay per session.
    pub fn ask_todos(&mut self, id: &str) -> bool {
        let wanted = self.rows.get(id).is_some_and(|row| {
            row.turn_started_at.is_some() && !row.turn_seen_live && row.todos.is_none()
        });
        wanted && self.todos_asked.insert(id.to_string())
    }

    /// What a replay found of the running turn's todos, unless the stream has said since.
    pub fn set_replayed_todos(&mut self, id: &str, found: TodosFound) -> Applied {
        let TodosFound::List(done, total) = found else {
            return Applied::default();
        };
        let Some(row) = self
            .rows
            .get_mut(id)
            .filter(|row| row.todos.is_none() && !row.turn_seen_live)
        else {
            return Applied::default();
        };
        row.todos = Some((done, total));
        row.version = self.generation + 1;
        self.changed(Applied {
            visible: true,
            newly_needs_you: false,
        })
    }

    /// Sessions to read (first seen on the stream: their title and parent are only on the
    /// resource). Drained.
    pub fn take_refreshes(&mut self) -> Vec<String> {
        self.refresh.drain().collect()
    }

    /// Sessions taken by [`Self::take_refreshes`] and not read this round: asked again.
    pub(crate) fn refresh_later(&mut self, ids: Vec<String>) {
        self.refresh.extend(ids);
    }

    /// Whether a read is waiting to be asked.
    pub fn wants_refresh(&self) -> bool {
        !self.refresh.is_empty()
    }

    /// Untitled sessions whose first message is not known.
    pub fn missing_labels(&self) -> Vec<String> {
        self.rows
            .values()
            .filter(|r| r.known && r.label().is_none())
            .map(|r| r.id.clone())
            .collect()
    }

    /// Whether any row shows a running clock (a turn's elapsed time).
    pub fn has_running_turn(&self) -> bool {
        self.rows.values().any(|r| r.turn_started_at.is_some())
    }

    /// One event from the org stream. Transient events (deltas) change nothing shown.
    pub fn apply_event(&mut self, event: &Event) -> Applied {
        let Some(id) = event.session_id.as_deref() else {
            return Applied::default();
        };
        if event.seq.is_none() {
            return Applied::default();
        }
        self.org_cursor = self.org_cursor.max(event.seq);
        if let Some(absence) = &mut self.absence {
            absence.feed(event);
        }
        let at = event.created_at.unwrap_or(0);
        let inserted = !self.rows.contains_key(id);
        if inserted {
            self.rows
                .insert(id.to_string(), FleetRow::placeholder(id, at));
            self.refresh.insert(id.to_string());
        }
        let row = self.rows.get_mut(id).expect("inserted above");
        let before = row.clone();
        let was_waiting = !row.waiting.is_empty();
        row.last_activity = row.last_activity.max(at);
        let refresh = apply_to_row(row, &event.payload, at);
        // A new row is news even when the event itself changes nothing shown.
        let mut visible = inserted || *row != before;
        if visible {
            row.version = self.generation + 1;
        }
        visible |= self.waits.apply_event(id, event);
        let newly_needs_you = !was_waiting && !row.waiting.is_empty();
        if refresh {
            self.refresh.insert(id.to_string());
        }
        self.changed(Applied {
            visible,
            newly_needs_you,
        })
    }
}

/// What `payload` (at `at`) changes in its session's row; gives whether the session is to
/// be read again for what the event does not carry.
fn apply_to_row(row: &mut FleetRow, payload: &EventPayload, at: i64) -> bool {
    let mut refresh = false;
    match payload {
        EventPayload::TurnStarted(_) => {
            row.status = SessionStatus::Working;
            row.turn_started_at = Some(at);
            row.todos = None;
            row.turn_seen_live = true;
        }
        EventPayload::TurnEnded(_) => {
            row.turn_started_at = None;
            row.turn_seen_live = false;
            row.waiting.clear();
            // The outcome (failed or not) comes with the turns read the live task asks
            // for (see `set_turns`); a row never read is read whole.
            row.status = if row.queued > 0 {
                SessionStatus::Working
            } else {
                SessionStatus::Idle
            };
            refresh = !row.known;
        }
        EventPayload::ApprovalRequested(a) => wait(row, &a.tool_call_id, Needs::Approval),
        EventPayload::QuestionAsked(q) => wait(row, &q.tool_call_id, Needs::Question),
        // Read the session too: only its `required_actions` has what the answer copies
        // back (the call's turn, §14.9) and its deadline (`expires_at`, §9.4). An
        // approval or a question is answered by its call id alone: no read of its own.
        EventPayload::ToolRequired(f) => {
            wait(row, &f.tool_call_id, Needs::FunctionCall);
            refresh = true;
        }
        EventPayload::ApprovalResolved(a) => resolve(row, &a.tool_call_id),
        EventPayload::QuestionAnswered(q) => resolve(row, &q.tool_call_id),
        EventPayload::ToolResolved(f) => resolve(row, &f.tool_call_id),
        EventPayload::AgentTodos(todos) => {
            let total = todos.items.len() as u32;
            let done = todos.items.iter().filter(|t| t.status == "done").count() as u32;
            row.todos = Some((done, total));
        }
        EventPayload::MessageQueued(_) => row.queued += 1,
        EventPayload::MessageDequeued(_) => row.queued = row.queued.saturating_sub(1),
        EventPayload::SandboxCreated(s)
        | EventPayload::SandboxPaused(s)
        | EventPayload::SandboxResumed(s) => row.workspace = Some(s.state.clone()),
        EventPayload::WorkspaceRecoveryFailed(_) => {
            row.workspace = Some(WorkspaceState::RecoveryFailed)
        }
        EventPayload::ArtifactCreated(_) => row.artifacts += 1,
        EventPayload::UserMessage(m) if row.first_message.is_none() => {
            let first = label_text(&m.text);
            if !first.trim().is_empty() {
                row.first_message = Some(first);
            }
        }
        _ => {}
    }
    refresh
}

fn wait(row: &mut FleetRow, call_id: &str, needs: Needs) {
    if !row.waiting.iter().any(|(c, _)| c == call_id) {
        row.waiting.push((call_id.to_string(), needs));
    }
    row.status = SessionStatus::RequiresAction;
}

fn resolve(row: &mut FleetRow, call_id: &str) {
    row.waiting.retain(|(c, _)| c != call_id);
    if row.waiting.is_empty() && row.status == SessionStatus::RequiresAction {
        row.status = SessionStatus::Working;
    }
}

#[cfg(test)]
mod tests;
