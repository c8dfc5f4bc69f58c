//! The workspace (sandbox) state: from `sandbox.*` events and the session's `environment`.
//! `destroyed`, `recovering` and `unknown` have no events and only show up via a GET.

use crate::deadline::WorkspaceClock;
use gobare_api::model::{Environment, Preview, Repo, Usage, WorkspaceState};
use std::collections::VecDeque;

/// Transitions the pane lists.
pub(crate) const RECENT_TRANSITIONS: usize = 6;

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WorkspaceView {
    /// `None`: never reported, or the server sent `null` (§14.22); shown as unknown.
    state: Option<WorkspaceState>,
    since_ms: Option<i64>,
    /// (state, when), oldest first.
    transitions: VecDeque<(Option<WorkspaceState>, Option<i64>)>,
    repo: Option<Repo>,
    preview: Preview,
    recovery_error: Option<String>,
    usage: Option<SandboxUsage>,
    /// Its running time since it started, for a parked turn's deadline (§5).
    clock: WorkspaceClock,
}

/// Sandbox time read from `GET …/usage`: the session's, and its crew's when it has one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxUsage {
    pub session: Usage,
    /// The tree (`?root=`) the session belongs to; `None` when it is alone.
    pub crew: Option<Usage>,
}

impl WorkspaceView {
    pub(crate) fn state(&self) -> Option<&WorkspaceState> {
        self.state.as_ref()
    }

    pub(crate) fn since_ms(&self) -> Option<i64> {
        self.since_ms
    }

    pub(crate) fn transitions(&self) -> &VecDeque<(Option<WorkspaceState>, Option<i64>)> {
        &self.transitions
    }

    pub(crate) fn repo(&self) -> Option<&Repo> {
        self.repo.as_ref()
    }

    pub(crate) fn preview(&self) -> &Preview {
        &self.preview
    }

    pub(crate) fn recovery_error(&self) -> Option<&str> {
        self.recovery_error.as_deref()
    }

    pub(crate) fn clock(&self) -> &WorkspaceClock {
        &self.clock
    }

    /// The clock follows a `sandbox.*` event (`state` running after `sandbox.created` or
    /// `sandbox.resumed`, paused after `sandbox.paused`).
    pub(crate) fn clock_event(&mut self, created: bool, state: &WorkspaceState, at: Option<i64>) {
        match (created, state) {
            (true, _) => self.clock.created(at),
            (false, WorkspaceState::Paused) => self.clock.paused(at),
            (false, _) => self.clock.resumed(at),
        }
    }

    /// The history has a hole (a truncated replay).
    pub(crate) fn clock_gap(&mut self) {
        self.clock.gap();
    }

    pub(crate) fn usage(&self) -> Option<&SandboxUsage> {
        self.usage.as_ref()
    }

    /// A fresh usage read. Returns whether it changed.
    pub(crate) fn set_usage(&mut self, usage: SandboxUsage) -> bool {
        let changed = self.usage.as_ref() != Some(&usage);
        self.usage = Some(usage);
        changed
    }

    /// What the pane calls the state (§9.1's "client display").
    pub(crate) fn label(&self) -> &str {
        match &self.state {
            None | Some(WorkspaceState::Other(_)) => "unknown",
            Some(WorkspaceState::Unknown) => "starting",
            Some(WorkspaceState::Running) => "running",
            Some(WorkspaceState::Paused) => "paused",
            Some(WorkspaceState::Destroyed) => "destroyed",
            Some(WorkspaceState::Recovering) => "recovering",
            Some(WorkspaceState::RecoveryFailed) => "recovery failed",
        }
    }

    /// What sending a message does now: with a turn running (or `queued` messages
    /// waiting) it queues behind them, else it starts a turn, waking or rebuilding the
    /// workspace first.
    pub(crate) fn next_message(&self, turn_busy: bool, queued: u32) -> String {
        if turn_busy || queued > 0 {
            return format!("next message queues as #{}", queued + 1);
        }
        match &self.state {
            Some(WorkspaceState::Paused) => {
                "next message wakes the paused workspace (files kept, processes not)".into()
            }
            Some(WorkspaceState::Destroyed) => "next message rebuilds the destroyed workspace \
                 from its last snapshot where there is one (node_modules and .git excluded, \
                 nothing over 300 MB), then starts a turn"
                .into(),
            _ => "next message starts a turn".into(),
        }
    }

    /// What to expect next, for people, in the states the next message does not explain.
    pub(crate) fn hint(&self) -> Option<&'static str> {
        match &self.state {
            Some(WorkspaceState::Recovering) => Some("rebuild in progress"),
            Some(WorkspaceState::RecoveryFailed) => Some("rebuild gave up: needs attention"),
            Some(WorkspaceState::Unknown) => Some("sandbox has not reported yet"),
            _ => None,
        }
    }

    /// A state change (from an event or a GET). Returns whether it changed.
    pub(crate) fn set_state(&mut self, state: Option<WorkspaceState>, at: Option<i64>) -> bool {
        if self.state == state && !self.transitions.is_empty() {
            return false;
        }
        if state != Some(WorkspaceState::RecoveryFailed) && state.is_some() {
            self.recovery_error = None;
        }
        self.state = state.clone();
        self.since_ms = at;
        // "unknown" is only what a read before the sandbox existed said: not a state the
        // workspace was in, and a restart replaying the events never sees it.
        if self.transitions.len() == 1 && self.transitions[0].0.is_none() {
            self.transitions.clear();
        }
        if self.transitions.len() == RECENT_TRANSITIONS {
            self.transitions.pop_front();
        }
        self.transitions.push_back((state, at));
        true
    }

    pub(crate) fn recovery_failed(&mut self, message: &str, at: Option<i64>) {
        self.set_state(Some(WorkspaceState::RecoveryFailed), at);
        self.recovery_error = Some(message.to_string());
    }

    pub(crate) fn preview_ready(&mut self, port: Option<u16>, url: Option<&str>) {
        self.preview.port = port.or(self.preview.port);
        if let Some(u) = url {
            self.preview.url = Some(u.to_string());
        }
    }

    /// The session's `environment` and `preview`; `at` is the session's `updated_at`.
    pub(crate) fn absorb(&mut self, env: &Environment, preview: &Preview, at: i64) -> bool {
        let before = self.clone();
        // A read says where the workspace is now; the transitions list only what the
        // events said, so a restart that replays them shows the same list.
        if self.state != env.state {
            if env.state != Some(WorkspaceState::RecoveryFailed) && env.state.is_some() {
                self.recovery_error = None;
            }
            self.state = env.state.clone();
            self.since_ms = Some(at);
        }
        self.repo = env.repo.clone();
        self.preview = preview.clone();
        self.clock.set_published(preview.published_url.is_some());
        if env.state == Some(WorkspaceState::Destroyed) {
            // Reclaimed: the next workspace starts a clock of its own.
            self.clock = WorkspaceClock::default();
        }
        *self != before
    }
}
