//! Building a [`Digest`] from a session's persisted events (as the local event log holds them, or
//! as they are applied) and the resources read since (turns for outcomes and running time,
//! the session for what waits and the workspace's state, usage for the sandbox total).
//!
//! Events before the absence are skipped by `seq` (after the last one the user saw) or by
//! time (`report --since`); most types are skipped by their name alone, before any decode,
//! so a long absence costs little more than reading the log.

use super::digest::{
    ArtifactAdded, Decision, Digest, FailedTurn, LISTED, Outcome, WorkspaceChange,
};
use crate::session::actions::Actions;
use gobare_api::envelope_type::envelope_type;
use gobare_api::model::{
    Artifact, Event, EventPayload, RequiredAction, RequiredActionKind, Session, Turn, TurnStatus,
    WorkspaceState,
};
use gobare_api::text::one_line;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// Characters kept of a reason, a decision's text or a path.
const TEXT_CHARS: usize = 160;

/// The event types a digest reads; every other is skipped undecoded.
const READ: &[&str] = &[
    "turn.started",
    "turn.ended",
    "agent.error",
    "approval.requested",
    "approval.resolved",
    "question.asked",
    "question.answered",
    "tool.required",
    "tool.resolved",
    "sandbox.created",
    "sandbox.paused",
    "sandbox.resumed",
    "workspace.recovery_failed",
    "artifact.created",
];

/// The types followed from before the window too.
const FOLLOWED: &[&str] = &[
    "turn.started",
    "sandbox.created",
    "sandbox.paused",
    "sandbox.resumed",
];

/// Which events belong to the absence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    /// Only events after this seq (the last the user saw).
    pub after_seq: Option<u64>,
    /// Only events stamped at or after this (Unix ms).
    pub from_ms: Option<i64>,
}

impl Window {
    fn holds(&self, seq: u64, created_at: Option<i64>) -> bool {
        self.after_seq.is_none_or(|after| seq > after)
            && match (self.from_ms, created_at) {
                (Some(from), Some(at)) => at >= from,
                _ => true,
            }
    }
}

#[derive(Debug, Clone, Default)]
struct Ended {
    /// Its `turn.ended` was in the window (an error may be known of a turn still running).
    ended: bool,
    at: Option<i64>,
    outcome: Option<Outcome>,
    reason: Option<String>,
    /// The last `agent.error` of the turn: the reason when the turn's own is missing.
    error: Option<String>,
}

/// Feeds on events and resources; [`DigestBuilder::digest`] says where it stands.
#[derive(Debug, Clone, Default)]
pub struct DigestBuilder {
    window: Window,
    session_id: String,
    title: Option<String>,
    since_ms: i64,
    last_seq: Option<u64>,
    events: u64,
    /// Turns ended in the window, in order.
    ended: Vec<String>,
    turns: HashMap<String, Ended>,
    /// The turn running, for the errors that explain a failure.
    current_turn: Option<String>,
    /// Waiting now, by call id, in the order asked (events first, the session's list wins).
    decisions: BTreeMap<u64, Decision>,
    next_decision: u64,
    decisions_read: bool,
    /// Required actions the session's list gave that could not be read: still waiting.
    decisions_unreadable: u32,
    /// Calls asked inside the window, as the events said.
    asked_ids: HashSet<String>,
    artifacts_added: u32,
    artifacts: VecDeque<ArtifactAdded>,
    /// Ids of the artifacts counted, so a list read after the events counts none twice.
    artifact_ids: HashSet<String>,
    workspace: Vec<(WorkspaceChange, Option<i64>)>,
    /// A workspace existed before this sandbox.created (so it is a rebuild).
    had_workspace: bool,
    workspace_now: Option<WorkspaceState>,
    turn_seconds: u64,
    /// Seconds each turn ran within the window, by id (reads of several pages add up).
    ran: HashMap<String, u64>,
    sandbox_seconds: Option<u64>,
}

impl DigestBuilder {
    /// A digest of session `session_id`'s events in `window`, the absence having begun at
    /// `since_ms` (for the words "away 3h"; 0 when unknown). `known_before`: the session
    /// had a workspace before the window (a `sandbox.created` in it is a rebuild).
    pub fn new(session_id: &str, window: Window, since_ms: i64, known_before: bool) -> Self {
        DigestBuilder {
            window,
            session_id: one_line(session_id, 100),
            since_ms,
            had_workspace: known_before,
            ..DigestBuilder::default()
        }
    }

    pub fn set_title(&mut self, title: Option<&str>) {
        self.title = title
            .filter(|t| !t.trim().is_empty())
            .map(|t| one_line(t, 80));
    }

    /// One logged record: skipped by seq and by type before anything is decoded.
    pub fn feed_raw(&mut self, seq: u64, json: &[u8]) {
        if self.last_seq.is_some_and(|last| seq <= last) {
            return;
        }
        let kind = envelope_type(json);
        let before = self.window.after_seq.is_some_and(|after| seq <= after);
        // Before the window only what says which turn runs and whether a workspace
        // existed matters; inside it, the types a digest reads.
        let wanted = match kind {
            Some(kind) if before => FOLLOWED.contains(&kind),
            Some(kind) => READ.contains(&kind),
            None => true,
        };
        if !wanted {
            self.count(seq, None);
            return;
        }
        match Event::parse(&String::from_utf8_lossy(json)) {
            Ok(event) => self.feed(seq, &event),
            Err(_) => {
                self.count(seq, None);
            }
        }
    }

    fn count(&mut self, seq: u64, created_at: Option<i64>) -> bool {
        self.last_seq = Some(seq);
        if !self.window.holds(seq, created_at) {
            return false;
        }
        self.events += 1;
        true
    }

    /// One persisted event, decoded (what is applied from the stream).
    pub fn feed(&mut self, seq: u64, event: &Event) {
        if self.last_seq.is_some_and(|last| seq <= last) {
            return;
        }
        let at = event.created_at;
        let inside = self.count(seq, at);
        // The turn running and the workspace's story are followed from before the window
        // too: a failure inside it is explained by an error just before.
        match &event.payload {
            EventPayload::TurnStarted(t) => self.current_turn = Some(t.turn_id.clone()),
            EventPayload::SandboxCreated(_)
            | EventPayload::SandboxPaused(_)
            | EventPayload::SandboxResumed(_)
                if !inside =>
            {
                self.had_workspace = true
            }
            _ => {}
        }
        if !inside {
            return;
        }
        match &event.payload {
            EventPayload::TurnEnded(t) => {
                let ended = self.turns.entry(t.turn_id.clone()).or_default();
                if !ended.ended {
                    ended.ended = true;
                    self.ended.push(t.turn_id.clone());
                }
                ended.at = at;
                if self.current_turn.as_deref() == Some(t.turn_id.as_str()) {
                    self.current_turn = None;
                }
            }
            EventPayload::AgentError(m) => {
                if let Some(turn) = self.current_turn.clone() {
                    self.turns.entry(turn).or_default().error =
                        Some(one_line(&m.message, TEXT_CHARS));
                }
            }
            EventPayload::ApprovalRequested(a) => {
                self.asked(&a.tool_call_id, "approval", Some(&a.name), at)
            }
            EventPayload::QuestionAsked(q) => {
                self.asked(&q.tool_call_id, "question", Some(&q.question), at)
            }
            EventPayload::ToolRequired(f) => {
                self.asked(&f.tool_call_id, "function_call", Some(&f.name), at)
            }
            EventPayload::ApprovalResolved(r) => self.resolved(&r.tool_call_id),
            EventPayload::QuestionAnswered(a) => self.resolved(&a.tool_call_id),
            EventPayload::ToolResolved(r) => self.resolved(&r.tool_call_id),
            EventPayload::SandboxCreated(_) => {
                let change = if self.had_workspace {
                    WorkspaceChange::Recovered
                } else {
                    WorkspaceChange::Started
                };
                self.had_workspace = true;
                self.workspace.push((change, at));
            }
            EventPayload::SandboxPaused(_) => self.workspace.push((WorkspaceChange::Paused, at)),
            EventPayload::SandboxResumed(_) => self.workspace.push((WorkspaceChange::Resumed, at)),
            EventPayload::WorkspaceRecoveryFailed(_) => {
                self.workspace.push((WorkspaceChange::RecoveryFailed, at))
            }
            EventPayload::ArtifactCreated(a) => self.artifact(&a.id, &a.path, a.size_bytes, at),
            _ => {}
        }
    }

    fn artifact(&mut self, id: &str, path: &str, size_bytes: Option<u64>, at: Option<i64>) {
        if !self.artifact_ids.insert(id.to_string()) {
            return;
        }
        self.artifacts_added += 1;
        if self.artifacts.len() == LISTED {
            self.artifacts.pop_front();
        }
        self.artifacts.push_back(ArtifactAdded {
            path: one_line(path, TEXT_CHARS),
            size_bytes,
            at,
        });
    }

    /// Artifacts as listed (newest first or not): those published in a window by time
    /// that no event brought (a session whose log is behind, or not kept here).
    pub fn artifacts_read(&mut self, artifacts: &[Artifact]) {
        let Some(from) = self.window.from_ms else {
            return;
        };
        let mut inside: Vec<&Artifact> = artifacts
            .iter()
            .filter(|a| a.created_at.is_some_and(|at| at >= from))
            .collect();
        inside.sort_by_key(|a| a.created_at);
        for a in inside {
            self.artifact(&a.id, &a.path, Some(a.size_bytes), a.created_at);
        }
    }

    fn asked(&mut self, call_id: &str, kind: &'static str, what: Option<&str>, at: Option<i64>) {
        self.asked_ids.insert(one_line(call_id, 100));
        if self.decisions_read {
            // The session's list is the truth (§9.4); a later read brings this one.
            return;
        }
        self.resolved(call_id);
        self.next_decision += 1;
        self.decisions.insert(
            self.next_decision,
            Decision {
                call_id: one_line(call_id, 100),
                kind,
                what: what
                    .filter(|w| !w.trim().is_empty())
                    .map(|w| one_line(w, TEXT_CHARS)),
                asked_at: at,
                expires_at: None,
            },
        );
    }

    fn resolved(&mut self, call_id: &str) {
        let call_id = one_line(call_id, 100);
        self.decisions.retain(|_, d| d.call_id != call_id);
    }

    /// The session as read now: what waits (its `required_actions` replace what the events
    /// said), the workspace's state, the title.
    pub fn session_read(&mut self, session: &Session) {
        if self.title.is_none() {
            self.set_title(session.title.as_deref());
        }
        self.actions_now(&session.required_actions);
        self.decisions_unreadable = session.required_actions.unreadable().len() as u32;
        let state = session.environment.state.clone();
        if state == Some(WorkspaceState::Destroyed)
            && self.workspace_now != Some(WorkspaceState::Destroyed)
            && self.workspace.last().map(|w| w.0) != Some(WorkspaceChange::Reclaimed)
            && self.had_workspace
        {
            self.workspace.push((WorkspaceChange::Reclaimed, None));
        }
        self.workspace_now = state;
    }

    /// What waits now (`required_actions`, the truth, §9.4): it replaces what the events
    /// said, keeping the question's text and when it was asked from them.
    pub fn actions_now<'a>(&mut self, actions: impl IntoIterator<Item = &'a RequiredAction>) {
        let asked: HashMap<String, Decision> = self
            .decisions
            .values()
            .map(|d| (d.call_id.clone(), d.clone()))
            .collect();
        self.decisions.clear();
        // The listing read as a session reads it, so a request is told in the inbox's words.
        let listed: Vec<RequiredAction> = actions.into_iter().cloned().collect();
        let mut facts = Actions::default();
        facts.replace(&listed);
        let pending = facts.pending().iter();
        for (i, (pending, action)) in pending
            .filter_map(|p| Some((p, p.resource.as_ref()?)))
            .enumerate()
        {
            let call_id = one_line(&action.call_id, 100);
            let from_events = asked.get(&call_id);
            let kind = match &action.kind {
                RequiredActionKind::Approval => "approval",
                RequiredActionKind::Question => "question",
                RequiredActionKind::FunctionCall | RequiredActionKind::Other(_) => "function_call",
            };
            let line = facts.request_line(pending);
            let what = Some(one_line(&line, TEXT_CHARS))
                .filter(|w| !w.trim().is_empty())
                .or_else(|| from_events.and_then(|d| d.what.clone()));
            self.decisions.insert(
                i as u64,
                Decision {
                    call_id,
                    kind,
                    what,
                    asked_at: action.created_at.or(from_events.and_then(|d| d.asked_at)),
                    expires_at: action.expires_at,
                },
            );
        }
        self.next_decision = self.decisions.len() as u64;
        self.decisions_read = true;
    }

    /// Turns as read: outcomes and reasons of those that ended in the absence, and the
    /// time each ran within it (up to `now_ms` for one still running).
    pub fn turns_read(&mut self, turns: &[Turn], now_ms: i64) {
        let from = self.window.from_ms.unwrap_or(self.since_ms);
        if let Some(window_from) = self.window.from_ms {
            // A window by time: the turns that settled in it are the absence's, whether an
            // event said so here or not. It ends at `now_ms`: a turn that settles while the
            // pages are read belongs to the next report, not this one.
            for turn in turns {
                let settled = !matches!(turn.status, TurnStatus::Working | TurnStatus::Other(_));
                if settled
                    && turn
                        .completed_at
                        .is_some_and(|at| at >= window_from && at <= now_ms)
                    && !self.turns.get(&turn.id).is_some_and(|e| e.ended)
                {
                    let ended = self.turns.entry(turn.id.clone()).or_default();
                    ended.ended = true;
                    ended.at = turn.completed_at;
                    self.ended.push(turn.id.clone());
                }
            }
            self.ended.sort_by_key(|id| self.turns[id].at);
        }
        for turn in turns {
            let outcome = match turn.status {
                TurnStatus::Completed => Outcome::Completed,
                TurnStatus::Failed => Outcome::Failed,
                TurnStatus::Cancelled => Outcome::Cancelled,
                TurnStatus::Working | TurnStatus::Other(_) => continue,
            };
            // Kept even when its `turn.ended` has not been taken in yet (a read can answer
            // before the stream's catch-up brings the event); not for turns that settled
            // well before the absence (a minute's grace for the clocks' difference).
            let known = self.turns.get(&turn.id).is_some_and(|e| e.ended);
            let recent = turn
                .completed_at
                .is_none_or(|at| at >= self.since_ms.saturating_sub(60_000));
            if !known && !recent {
                continue;
            }
            let ended = self.turns.entry(turn.id.clone()).or_default();
            ended.outcome = Some(outcome);
            if let Some(reason) = turn.error_text() {
                ended.reason = Some(one_line(&reason, TEXT_CHARS));
            }
            ended.at = ended.at.or(turn.completed_at);
        }
        for t in turns {
            let Some(start) = t.started_at.map(|s| s.max(from)) else {
                continue;
            };
            let end = t.completed_at.unwrap_or(now_ms).min(now_ms);
            if end > start {
                self.ran.insert(t.id.clone(), ((end - start) / 1000) as u64);
            }
        }
        self.turn_seconds = self.ran.values().sum();
    }

    /// How one turn ended, as read elsewhere (the fleet's own turn reads): counted when
    /// its `turn.ended` was in the window.
    pub fn turn_outcome(&mut self, turn_id: &str, status: &TurnStatus, reason: Option<&str>) {
        let outcome = match status {
            TurnStatus::Completed => Outcome::Completed,
            TurnStatus::Failed => Outcome::Failed,
            TurnStatus::Cancelled => Outcome::Cancelled,
            TurnStatus::Working | TurnStatus::Other(_) => return,
        };
        if let Some(ended) = self.turns.get_mut(turn_id).filter(|e| e.ended) {
            ended.outcome = Some(outcome);
            if let Some(reason) = reason {
                ended.reason = Some(one_line(reason, TEXT_CHARS));
            }
        }
    }

    /// The session's sandbox seconds in all.
    pub fn usage_read(&mut self, sandbox_seconds: u64) {
        self.sandbox_seconds = Some(sandbox_seconds);
    }

    /// Persisted events taken in so far (in the window).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The digest as of `now_ms`.
    pub fn digest(&self, now_ms: i64) -> Digest {
        let mut d = Digest {
            session_id: self.session_id.clone(),
            title: self.title.clone(),
            since_ms: self.since_ms,
            until_ms: now_ms,
            events: self.events,
            decisions_waiting: self.decisions.len() as u32 + self.decisions_unreadable,
            decisions_new: self
                .decisions
                .values()
                .filter(|d| {
                    self.asked_ids.contains(&d.call_id)
                        || self
                            .window
                            .from_ms
                            .is_some_and(|from| d.asked_at.is_some_and(|at| at >= from))
                })
                .count() as u32,
            decisions: self.decisions.values().take(LISTED).cloned().collect(),
            artifacts_added: self.artifacts_added,
            artifacts: self.artifacts.iter().cloned().collect(),
            workspace: self.workspace.clone(),
            workspace_now: self.workspace_now.as_ref().map(|s| s.as_str().to_string()),
            turn_seconds: self.turn_seconds,
            sandbox_seconds: self.sandbox_seconds,
            ..Digest::default()
        };
        for id in &self.ended {
            let ended = &self.turns[id];
            match ended.outcome {
                Some(Outcome::Completed) => d.turns_completed += 1,
                Some(Outcome::Cancelled) => d.turns_cancelled += 1,
                Some(Outcome::Failed) => {
                    d.turns_failed += 1;
                    d.failed.push(FailedTurn {
                        turn_id: one_line(id, 100),
                        at: ended.at,
                        reason: ended.reason.clone().or_else(|| ended.error.clone()),
                    });
                }
                Some(Outcome::Unread) | None => d.turns_unread += 1,
            }
        }
        let extra = d.failed.len().saturating_sub(LISTED);
        d.failed.drain(..extra);
        d
    }
}

#[cfg(test)]
mod tests;
