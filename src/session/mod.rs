//! The model: pure, synchronous, no IO, no terminal.
//!
//! The app feeds [`Update`]s into [`Session::apply`], which says whether anything
//! visible changed (so the app requests a frame only then), and drains
//! `Session::take_fetches` to learn which resources to re-read.

pub mod actions;
pub mod attention;
pub mod paging;
pub(crate) mod recent_events;
pub(crate) mod sensitive;
pub mod tail_replay;
pub(crate) mod text;
pub mod transcript;
pub(crate) mod turn;
pub(crate) mod vocabulary;
pub(crate) mod workspace;

#[cfg(test)]
mod tests;

use std::collections::HashMap;

use actions::Actions;
use gobare_api::model::{
    Artifact, Event, EventPayload, Item, RequiredActionKind, Session as ApiSession, SessionStatus,
    Turn,
};
use gobare_api::stream::ConnectionState;
use recent_events::RecentEvents;
use sensitive::SensitiveCalls;
use transcript::Transcript;
use turn::{TurnPhase, TurnState};
use workspace::WorkspaceView;

/// Everything the app feeds into the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// A decoded stream event, persisted (`seq`) or transient.
    Event(Event),
    /// A frame that could not be decoded (counted for the status bar).
    Skipped {
        reason: String,
    },
    Connection(ConnectionState),
    /// `GET /v1/sessions/{id}`.
    Session(Box<ApiSession>),
    /// `GET …/turns/{id}`.
    Turn(Turn),
    /// `GET …/turns` (any order).
    Turns(Vec<Turn>),
    /// Older turns, read only to say how their separators ended (the Turn pane keeps the
    /// last few).
    PastTurns(Vec<Turn>),
    /// Backfilled transcript (`GET …/items?order=asc`), in order.
    Items(Vec<Item>),
    /// An untitled session's first message (`GET …/items?order=asc&limit=5`), one line.
    FirstMessage(Option<String>),
    Artifacts(Vec<Artifact>),
    /// `GET …/usage` (and its crew variant).
    Usage(workspace::SandboxUsage),
    /// Wall clock in Unix ms, for the elapsed time of a running turn.
    Tick(i64),
    /// A message for the status line (a failed request: code, message, request id);
    /// `None` clears it.
    Notice(Option<Notice>),
}

/// How loudly to say something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth a glance at most (e.g. an answer delivered).
    Quiet,
    Info,
    Warn,
    /// Needs the user: something did not happen, or will not.
    Error,
}

/// One line for the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub(crate) severity: Severity,
    pub(crate) text: String,
}

/// An event after which what the user was last told may no longer be true: the turn ended
/// or the agent now waits on the user.
fn turns_the_page(payload: &EventPayload) -> bool {
    matches!(
        payload,
        EventPayload::TurnEnded(_)
            | EventPayload::ApprovalRequested(_)
            | EventPayload::QuestionAsked(_)
            | EventPayload::ToolRequired(_)
    )
}

impl Notice {
    /// A report of what just happened (quiet or informational), not a warning that stays
    /// true until dealt with.
    fn passing(&self) -> bool {
        self.severity <= Severity::Info
    }

    pub fn new(severity: Severity, text: impl Into<String>) -> Notice {
        Notice {
            severity,
            text: text.into(),
        }
    }
}

/// A resource the app should (re-)read because an event said it changed (§11.3).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Fetch {
    Session,
    Turn(String),
    /// Sandbox time, session and crew.
    Usage,
}

#[derive(Debug, Clone, Default)]
pub struct Session {
    session_id: String,
    title: Option<String>,
    api_host: String,
    local_demo: bool,
    /// The token cannot send or decide (`GET /v1/health` lacks `sessions:write`).
    read_only: bool,
    connection: Option<ConnectionState>,
    /// Since when (Unix ms) the stream has been open without a frame or a ping, across
    /// silent reconnects; the app sets it, the status bar says it.
    stream_silent_since_ms: Option<i64>,
    /// The stream said nothing for two connections: the session is read through its
    /// resources until it speaks again.
    reading_resources: bool,
    /// A read of what is on screen waits this many more seconds for the request budget.
    budget_wait_secs: Option<u64>,
    /// `[budget] sandbox_minutes`: shown beside the usage it is held against.
    sandbox_budget_minutes: Option<u32>,
    last_seq: Option<u64>,
    /// Set by `gobare.replay_truncated`: where the server cut a long replay.
    truncated_from: Option<u64>,
    skipped: u64,
    last_skip_reason: Option<String>,
    notice: Option<Notice>,
    now_ms: Option<i64>,
    transcript: Transcript,
    turn: TurnState,
    workspace: WorkspaceView,
    actions: Actions,
    artifacts: Vec<Artifact>,
    recent_events: RecentEvents,
    fetches: Vec<Fetch>,
    /// The session resource as last read (to tell whether a refetch changed anything).
    session: Option<ApiSession>,
    /// The server answered at least once (the stream opened, or anything was read or
    /// received): an empty transcript then means an empty session.
    reached: bool,
    /// Configuration warnings printed before the screen opened (which then covered them).
    config_warnings: Vec<String>,
    /// This machine keeps a local event log of the session's events (what the transcript's
    /// budget drops can be read again from it).
    event_log_here: bool,
    /// Outcomes read in a page of turns before the replay reached their `turn.ended`:
    /// written when the separator is.
    outcomes_ahead: HashMap<String, transcript::TurnOutcome>,
    /// The session's first message, read from its items (not from the events replayed,
    /// which may start later): an untitled session's name, as `list` and the fleet say it.
    first_message: Option<String>,
}

/// Outcomes kept ahead of their separators at most (the newest pages' worth).
const OUTCOMES_AHEAD: usize = 10_000;

impl Session {
    pub fn new(session_id: impl Into<String>) -> Self {
        Session {
            session_id: session_id.into(),
            ..Session::default()
        }
    }

    /// Where the session lives, for the status bar; `local_demo` marks the simulator.
    pub fn with_origin(mut self, api_host: impl Into<String>, local_demo: bool) -> Self {
        self.api_host = api_host.into();
        self.local_demo = local_demo;
        self
    }

    /// Configuration warnings to show on the screen, one a line at the top of the
    /// transcript; the status bar says how many there are until another notice replaces it.
    pub(crate) fn with_config_warnings(mut self, warnings: Vec<String>) -> Self {
        let text = match warnings.len() {
            0 => None,
            1 => Some("a config warning: see the top of the transcript".to_string()),
            n => Some(format!(
                "{n} config warnings: see the top of the transcript"
            )),
        };
        if let Some(text) = text {
            self.notice = Some(Notice::new(Severity::Warn, text));
        }
        self.config_warnings = warnings;
        self
    }

    /// Bounds the heap the transcript's entries take (the oldest are dropped beyond it);
    /// call before applying anything.
    pub fn with_transcript_budget(mut self, bytes: usize) -> Self {
        self.transcript = Transcript::with_budget(bytes);
        self
    }

    /// The sandbox minutes `[budget]` sets for a session, shown where its usage is.
    pub(crate) fn with_sandbox_budget(mut self, minutes: Option<u32>) -> Self {
        self.sandbox_budget_minutes = minutes;
        self
    }

    pub(crate) fn sandbox_budget_minutes(&self) -> Option<u32> {
        self.sandbox_budget_minutes
    }

    /// Applies one update. Returns whether anything visible changed.
    pub fn apply(&mut self, update: Update) -> bool {
        match update {
            Update::Event(ev) => self.apply_borrowed_event(&ev),
            Update::Skipped { reason } => {
                self.skipped += 1;
                self.last_skip_reason = Some(text::clip(&reason, 200));
                true
            }
            Update::Connection(c) => {
                // A reconnect never clears anything: only the indicator changes.
                let changed = self.connection.as_ref() != Some(&c);
                self.reached |= matches!(c, ConnectionState::Live | ConnectionState::Open { .. });
                self.connection = Some(c);
                changed
            }
            Update::Session(s) => {
                let first = !self.reached;
                self.reached = true;
                self.apply_session(*s) || first
            }
            Update::Turn(t) => {
                let before = self.turn.clone();
                self.turn.absorb(&t);
                let marked = self.mark_turn_end(&t.id);
                self.turn != before || marked
            }
            Update::PastTurns(list) => self.write_outcomes(&list),
            Update::Turns(list) => {
                let before = self.turn.clone();
                self.turn.absorb_page(&list);
                let marked = self.write_outcomes(&list);
                self.turn != before || marked
            }
            Update::FirstMessage(first) => {
                let changed = first != self.first_message;
                self.first_message = first;
                changed
            }
            Update::Items(items) => {
                let mut changed = !self.reached;
                self.reached = true;
                for item in &items {
                    changed |= self
                        .transcript
                        .apply_item(item, self.actions.sensitive_calls_mut());
                }
                // Whichever arrives first, items or the session, what still waits reads so.
                let waiting: Vec<String> = self
                    .actions
                    .pending()
                    .iter()
                    .map(|a| a.call_id.clone())
                    .collect();
                changed |= self
                    .transcript
                    .still_waiting(waiting.iter().map(String::as_str));
                changed
            }
            Update::Artifacts(list) => {
                let changed = list != self.artifacts;
                self.artifacts = list;
                changed
            }
            Update::Usage(usage) => self.workspace.set_usage(usage),
            Update::Tick(now) => {
                let before = self.elapsed_secs();
                self.now_ms = Some(now);
                self.turn_running() && self.elapsed_secs() != before
            }
            Update::Notice(n) => {
                let changed = n != self.notice;
                self.notice = n;
                changed
            }
        }
    }

    /// [`Session::write_outcome`] for each turn (every one, whatever the others did).
    fn write_outcomes(&mut self, list: &[Turn]) -> bool {
        let mut changed = false;
        for t in list {
            changed |= self.write_outcome(t);
        }
        changed
    }

    /// Writes how a listed turn ended onto its separator, or keeps it for the separator a
    /// replay has not reached yet.
    fn write_outcome(&mut self, t: &Turn) -> bool {
        let Some(outcome) = transcript::TurnOutcome::settled(
            Some(&t.status),
            Some(t.created_at),
            t.started_at,
            t.completed_at,
            t.error_text(),
        ) else {
            return false;
        };
        if self.transcript.has_turn_end(&t.id) {
            return self.transcript.turn_outcome(&t.id, outcome);
        }
        if self.outcomes_ahead.len() < OUTCOMES_AHEAD {
            self.outcomes_ahead.insert(t.id.clone(), outcome);
        }
        false
    }

    /// Writes a settled turn's outcome onto its separator in the transcript.
    fn mark_turn_end(&mut self, turn_id: &str) -> bool {
        let Some(info) = self.turn.find(turn_id) else {
            return false;
        };
        let Some(outcome) = transcript::TurnOutcome::settled(
            info.status.as_ref(),
            info.created_at,
            info.started_at,
            info.completed_at,
            info.error.clone(),
        ) else {
            return false;
        };
        self.transcript.turn_outcome(turn_id, outcome)
    }

    /// [`Session::apply`] of [`Update::Event`] without taking the event: a stream frame
    /// is applied where it lies, not moved into an update first.
    pub(crate) fn apply_borrowed_event(&mut self, ev: &Event) -> bool {
        self.reached = true;
        self.apply_event(ev)
    }

    fn apply_event(&mut self, ev: &Event) -> bool {
        if let Some(seq) = ev.seq {
            if self.last_seq.is_some_and(|last| seq <= last) {
                return false; // replayed: already applied (§7.4 defensive dedupe)
            }
            self.last_seq = Some(seq);
        }
        self.recent_events.push(ev);
        self.transcript
            .apply_event(ev, self.actions.sensitive_calls_mut());
        self.apply_lasting(ev);
        true
    }

    /// What an event changes beyond the transcript and the Events pane.
    fn apply_lasting(&mut self, ev: &Event) {
        if self.notice.as_ref().is_some_and(Notice::passing) && turns_the_page(&ev.payload) {
            // "sent — the agent is on it" is wrong once the agent waits on you or the turn
            // ended: the screen says what is true now.
            self.notice = None;
        }
        use EventPayload as P;
        match &ev.payload {
            P::TurnStarted(t) => {
                self.turn.started(&t.turn_id, ev.created_at);
                self.want(Fetch::Session);
            }
            P::UserMessage(m) => self.turn.user_message(&m.text),
            P::AgentToolCall(c) => self
                .turn
                .tool_called(&c.tool_name, text::short_args(&c.args, 80)),
            P::AgentToolResult(_) => self.turn.tool_done(),
            P::AgentTodos(t) => self.turn.todos(turn::TodoProgress {
                done: t.items.iter().filter(|i| i.status == "done").count(),
                total: t.items.len(),
                next: t
                    .items
                    .iter()
                    .find(|i| i.status != "done")
                    .map(|i| i.label.clone()),
            }),
            P::TurnEnded(t) => {
                self.turn.ended(&t.turn_id, ev.created_at);
                if let Some(outcome) = self.outcomes_ahead.remove(&t.turn_id) {
                    self.transcript.turn_outcome(&t.turn_id, outcome);
                }
                self.mark_turn_end(&t.turn_id);
                if !self.turn.settled(&t.turn_id) {
                    // A page already said how it ended otherwise: no read of its own.
                    self.want(Fetch::Turn(t.turn_id.clone()));
                }
                self.want(Fetch::Session);
                self.want(Fetch::Usage);
            }
            P::MessageQueued(q) => {
                self.turn.queued(q.position);
                self.want(Fetch::Session);
            }
            P::MessageDequeued(_) => {
                self.turn.dequeued();
                self.want(Fetch::Session);
            }
            P::ToolRequired(f) => {
                self.actions.asked(
                    RequiredActionKind::FunctionCall,
                    &f.tool_call_id,
                    &f.name,
                    &f.arguments,
                    ev.created_at,
                );
                self.want(Fetch::Session);
            }
            P::ApprovalRequested(a) => {
                self.actions.asked(
                    RequiredActionKind::Approval,
                    &a.tool_call_id,
                    &a.name,
                    &a.args,
                    ev.created_at,
                );
                self.actions.set_approval_details(
                    &a.tool_call_id,
                    &a.name,
                    a.args.clone(),
                    a.sensitive,
                );
                self.want(Fetch::Session);
            }
            P::QuestionAsked(q) => {
                let args = serde_json::Value::String(q.question.clone());
                self.actions.asked(
                    RequiredActionKind::Question,
                    &q.tool_call_id,
                    "",
                    &args,
                    ev.created_at,
                );
                self.actions.set_question_details(
                    &q.tool_call_id,
                    &q.question,
                    q.options.clone(),
                    q.allow_freeform,
                );
                self.want(Fetch::Session);
            }
            P::ToolResolved(f) => {
                // Failed at or past its deadline, unanswered: it expired (§9.4), and says so.
                let expired = !f.success
                    && self
                        .actions
                        .pending()
                        .iter()
                        .find(|a| a.call_id == f.tool_call_id)
                        .and_then(|a| a.expires_at)
                        .zip(ev.created_at)
                        .is_some_and(|(deadline, at)| at >= deadline);
                if expired {
                    self.transcript.function_expired(&f.tool_call_id);
                }
                self.actions.resolved(&f.tool_call_id);
                self.want(Fetch::Session);
            }
            P::ApprovalResolved(a) => {
                self.actions.resolved(&a.tool_call_id);
                self.want(Fetch::Session);
            }
            P::QuestionAnswered(q) => {
                self.actions.resolved(&q.tool_call_id);
                self.want(Fetch::Session);
            }
            P::SandboxCreated(s) | P::SandboxPaused(s) | P::SandboxResumed(s) => {
                let created = matches!(ev.payload, P::SandboxCreated(_));
                self.workspace.clock_event(created, &s.state, ev.created_at);
                self.workspace
                    .set_state(Some(s.state.clone()), ev.created_at);
            }
            P::WorkspaceRecoveryFailed(m) => {
                self.workspace.recovery_failed(&m.message, ev.created_at);
                self.want(Fetch::Session);
            }
            P::PreviewReady(p) => self.workspace.preview_ready(p.port, p.url.as_deref()),
            P::ReplayTruncated(t) => {
                self.truncated_from = t.from_seq.or(self.truncated_from);
                self.workspace.clock_gap();
            }
            _ => {}
        }
    }

    /// Approvals known (from the last run) to have been asked as sensitive.
    pub(crate) fn know_sensitive(&mut self, calls: &SensitiveCalls) {
        for id in calls.iter() {
            self.actions.mark_sensitive(id);
        }
        self.transcript
            .know_sensitive(self.actions.sensitive_calls());
    }

    fn apply_session(&mut self, s: ApiSession) -> bool {
        if self.session.as_ref() == Some(&s) {
            return false;
        }
        self.session_id.clone_from(&s.id);
        self.title.clone_from(&s.title);
        // Idle or failed is "ready for input" (§9.1): no message can be waiting.
        if matches!(s.status, SessionStatus::Idle | SessionStatus::Failed) {
            self.turn.queue_empty();
        }
        self.actions.replace(&s.required_actions);
        self.transcript
            .still_waiting(s.required_actions.iter().map(|a| a.call_id.as_str()));
        self.workspace
            .absorb(&s.environment, &s.preview, s.updated_at);
        self.session = Some(s);
        true
    }

    fn want(&mut self, f: Fetch) {
        if matches!(f, Fetch::Turn(_)) {
            // Only the newest settled turn matters (a long replay ends many turns).
            self.fetches.retain(|x| !matches!(x, Fetch::Turn(_)));
        }
        if !self.fetches.contains(&f) {
            self.fetches.push(f);
        }
    }

    fn elapsed_secs(&self) -> Option<i64> {
        self.turn
            .current()?
            .elapsed_ms(self.now_ms)
            .map(|ms| ms / 1000)
    }

    // ---- accessors -------------------------------------------------------------------

    /// Resources to re-read, oldest request first; each listed once. Draining clears them.
    pub(crate) fn take_fetches(&mut self) -> Vec<Fetch> {
        std::mem::take(&mut self.fetches)
    }

    /// Why nothing is shown yet when the server has never answered and the stream is
    /// waiting to try again: the last attempt's reason. `None` once anything has loaded,
    /// while the first attempt is under way, and after a refusal (the server answered).
    pub(crate) fn unreachable(&self) -> Option<&str> {
        match self.connection.as_ref() {
            Some(ConnectionState::Retrying { reason, .. }) if !self.reached => Some(reason),
            _ => None,
        }
    }

    /// Says whether a local event log of the session's events is kept.
    pub(crate) fn set_event_log_here(&mut self, kept: bool) {
        self.event_log_here = kept;
    }

    pub(crate) fn has_event_log_here(&self) -> bool {
        self.event_log_here
    }

    pub(crate) fn config_warnings(&self) -> &[String] {
        &self.config_warnings
    }

    pub(crate) fn session_id(&self) -> &str {
        &self.session_id
    }

    pub(crate) fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// What to call the session: its title, else its first message (as `list` and the
    /// fleet do); its id only while neither is known (no message yet, or not read yet).
    pub(crate) fn name(&self) -> &str {
        self.title
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .or(self.first_message.as_deref())
            .unwrap_or(&self.session_id)
    }

    pub(crate) fn api_host(&self) -> &str {
        &self.api_host
    }

    pub(crate) fn local_demo(&self) -> bool {
        self.local_demo
    }

    pub(crate) fn read_only(&self) -> bool {
        self.read_only
    }

    pub(crate) fn set_read_only(&mut self, read_only: bool) {
        self.read_only = read_only;
    }

    pub fn connection(&self) -> Option<&ConnectionState> {
        self.connection.as_ref()
    }

    /// The seq of the last persisted event applied (the resume cursor as the model sees it).
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    #[cfg(test)]
    pub(crate) fn truncated_from(&self) -> Option<u64> {
        self.truncated_from
    }

    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    pub(crate) fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    pub(crate) fn now_ms(&self) -> Option<i64> {
        self.now_ms
    }

    /// Whether the workspace is up (and accruing sandbox time).
    pub(crate) fn workspace_running(&self) -> bool {
        self.workspace.state() == Some(&gobare_api::model::WorkspaceState::Running)
    }

    /// How long the open stream has said nothing, as of the view's clock.
    pub(crate) fn stream_silent_for_ms(&self) -> Option<i64> {
        Some(self.now_ms? - self.stream_silent_since_ms?).map(|ms| ms.max(0))
    }

    /// How long a read of what is on screen still waits for the request budget.
    pub(crate) fn budget_wait_secs(&self) -> Option<u64> {
        self.budget_wait_secs
    }

    /// Says (or stops saying) that a read waits for the request budget.
    pub(crate) fn set_budget_wait(&mut self, secs: Option<u64>) -> bool {
        let changed = self.budget_wait_secs != secs;
        self.budget_wait_secs = secs;
        changed
    }

    /// Whether the session is read through its resources while its stream is silent.
    pub(crate) fn reading_resources(&self) -> bool {
        self.reading_resources
    }

    /// Since when the stream has been silent (`None`: it spoke, or is not open), and
    /// whether the resources are read meanwhile.
    pub(crate) fn set_stream_silence(&mut self, since_ms: Option<i64>, reading: bool) -> bool {
        let changed = self.stream_silent_since_ms != since_ms || self.reading_resources != reading;
        self.stream_silent_since_ms = since_ms;
        self.reading_resources = reading;
        changed
    }

    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    pub(crate) fn turns(&self) -> &TurnState {
        &self.turn
    }

    /// Whose tree the crew usage is read for: the parent when there is one (its crew),
    /// else this session (its own children, if any).
    pub(crate) fn crew_root(&self) -> String {
        self.session
            .as_ref()
            .and_then(|s| s.parent_session_id.clone())
            .unwrap_or_else(|| self.session_id.clone())
    }

    pub(crate) fn workspace(&self) -> &WorkspaceView {
        &self.workspace
    }

    /// What the session waits on, and what is known about each.
    pub fn actions(&self) -> &Actions {
        &self.actions
    }

    /// The waits, for what an answer's outcome changes before the next session read.
    pub(crate) fn actions_mut(&mut self) -> &mut Actions {
        &mut self.actions
    }

    pub(crate) fn artifacts(&self) -> &[Artifact] {
        &self.artifacts
    }

    pub(crate) fn recent_events(&self) -> &RecentEvents {
        &self.recent_events
    }

    /// The model the session's agent runs, as the session resource says.
    /// The session object as last read (`None` before the first read).
    pub(crate) fn session_object(&self) -> Option<&ApiSession> {
        self.session.as_ref()
    }

    pub(crate) fn model(&self) -> Option<&str> {
        self.session.as_ref()?.agent.model.as_deref()
    }

    /// The current turn's phase, `None` before any turn is known.
    pub(crate) fn turn_phase(&self) -> Option<TurnPhase> {
        Some(self.turn.current()?.phase(!self.actions.is_empty()))
    }

    /// When the oldest turn separator that does not yet say how its turn ended was written.
    pub(crate) fn oldest_turn_end_without_outcome(&self) -> Option<i64> {
        self.transcript.oldest_turn_end_without_outcome()
    }

    /// Whether a turn that ended at or after `since_ms` (any, when `None`) does not say yet
    /// how it ended: a separator without its outcome, or the Turn pane settling.
    pub(crate) fn outcomes_missing_since(&self, since_ms: Option<i64>) -> bool {
        let settling = self.turn_phase() == Some(TurnPhase::Settling);
        let separator = self
            .transcript
            .newest_turn_end_without_outcome()
            .is_some_and(|at| since_ms.is_none_or(|since| at >= since));
        settling || separator
    }

    /// Whether a turn runs now: the app ticks the clock (`Update::Tick`) only then.
    pub(crate) fn turn_running(&self) -> bool {
        self.turn_phase().is_some_and(|p| p.is_running())
    }

    /// The settled turn whose artifacts are still publishing: poll it until ready.
    pub(crate) fn artifacts_pending_turn(&self) -> Option<&str> {
        self.turn.artifacts_pending()
    }
}
