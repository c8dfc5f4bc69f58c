//! What each session of the fleet waits on, in the detail a decision needs — the session
//! model's own [`Actions`] (the listed actions, a question's text and options, an
//! approval's command and `sensitive` flag) — and each workspace's running clock
//! ([`WorkspaceClock`], from the `sandbox.*` events), so the inbox can list, time and
//! answer them without opening a session. Kept beside the fleet's rows, applied from the
//! same resources and events.

use std::collections::HashMap;

use crate::deadline::WorkspaceClock;
use crate::session::actions::Actions;
use gobare_api::model::{Event, EventPayload, RequiredActionKind, Session, WorkspaceState};

/// One session's waits and workspace clock.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionWaits {
    pub(crate) actions: Actions,
    pub(crate) clock: WorkspaceClock,
    /// Changes with every change of the above: the inbox gathers again only the sessions
    /// whose waits moved on.
    version: u64,
}

impl SessionWaits {
    pub(crate) fn version(&self) -> u64 {
        self.version
    }
}

/// Every session's waits, by session id.
#[derive(Debug, Clone, Default)]
pub struct FleetWaits {
    sessions: HashMap<String, SessionWaits>,
    /// The last version given to a session's waits.
    versions: u64,
    /// Clocks a session's own front handed over before the fleet listed that session:
    /// taken when its waits are first made from the session resource.
    handed_over: HashMap<String, WorkspaceClock>,
}

impl FleetWaits {
    pub(crate) fn get(&self, id: &str) -> Option<&SessionWaits> {
        self.sessions.get(id)
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut SessionWaits> {
        self.sessions.get_mut(id)
    }

    /// Every session with something pending.
    pub(crate) fn waiting(&self) -> impl Iterator<Item = (&str, &SessionWaits)> {
        self.sessions
            .iter()
            .filter(|(_, w)| !w.actions.is_empty())
            .map(|(id, w)| (id.as_str(), w))
    }

    /// A session resource. `current`: nothing newer was heard on the stream, so its list
    /// of required actions is the truth (§11.4). Returns whether anything changed.
    pub(crate) fn apply_session(&mut self, session: &Session, current: bool) -> bool {
        let waits = self.sessions.entry(session.id.clone()).or_default();
        let before = waits.clone();
        if let Some(clock) = self.handed_over.remove(&session.id) {
            adopt(&mut waits.clock, clock);
        }
        if current {
            waits.actions.replace(&session.required_actions);
            if session.environment.state == Some(WorkspaceState::Destroyed) {
                // Reclaimed: the next workspace starts its own clock (`sandbox.created`).
                waits.clock = WorkspaceClock::default();
            }
        }
        waits
            .clock
            .set_published(session.preview.published_url.is_some());
        let changed = *waits != before;
        if changed {
            self.versions += 1;
            waits.version = self.versions;
        }
        changed
    }

    /// The workspace clock a session's own front kept (it read the session's whole
    /// history): taken when the fleet's own is not known from the workspace's start, so
    /// the inbox opened from a session has the deadline the session's prompt showed.
    pub(crate) fn know_clock(&mut self, id: &str, clock: WorkspaceClock) -> bool {
        if !clock.is_complete() {
            return false;
        }
        match self.sessions.get_mut(id) {
            Some(waits) => {
                if !adopt(&mut waits.clock, clock) {
                    return false;
                }
                self.versions += 1;
                waits.version = self.versions;
                true
            }
            // Not listed yet: a listing would drop waits of a session it does not hold.
            None => {
                self.handed_over.insert(id.to_string(), clock);
                false
            }
        }
    }

    /// The session's usage: its workspace's running time `ran_ms` as of `as_of`, taken
    /// when the clock is not known from the workspace's start (the fleet opened after it).
    /// Returns whether anything changed.
    pub(crate) fn know_usage(&mut self, id: &str, ran_ms: i64, as_of: i64, running: bool) -> bool {
        let Some(waits) = self.sessions.get_mut(id) else {
            return false;
        };
        if waits.clock.is_complete() && !waits.clock.is_restored() {
            return false;
        }
        waits.clock.read_usage(ran_ms, as_of, running);
        self.versions += 1;
        waits.version = self.versions;
        true
    }

    /// The server answers no usage for the session: its clock says so while unknown.
    pub(crate) fn no_usage(&mut self, id: &str) -> bool {
        let Some(waits) = self.sessions.get_mut(id) else {
            return false;
        };
        let before = waits.clock;
        waits.clock.no_usage();
        let changed = waits.clock != before;
        if changed {
            self.versions += 1;
            waits.version = self.versions;
        }
        changed
    }

    /// Whether session `id`'s running time is known this run (from its start or its
    /// usage; a clock kept by an earlier run is read again).
    pub(crate) fn clock_known(&self, id: &str) -> bool {
        self.sessions
            .get(id)
            .is_some_and(|w| w.clock.is_complete() && !w.clock.is_restored())
    }

    /// Whether session `id`'s deadlines can be told: its running time known this run or
    /// kept by an earlier one.
    pub(crate) fn deadline_known(&self, id: &str) -> bool {
        self.sessions.get(id).is_some_and(|w| w.clock.is_complete())
    }

    /// Every known clock, to be kept across runs.
    pub(crate) fn clocks(&self) -> impl Iterator<Item = (&str, &WorkspaceClock)> {
        self.sessions
            .iter()
            .filter(|(_, w)| w.clock.is_complete())
            .map(|(id, w)| (id.as_str(), &w.clock))
    }

    /// One persisted event of the org stream. Returns whether anything changed.
    pub(crate) fn apply_event(&mut self, id: &str, event: &Event) -> bool {
        use EventPayload as P;
        // Most of a busy stream is neither: no lookup, no copy for those.
        let relevant = matches!(
            event.payload,
            P::ApprovalRequested(_)
                | P::QuestionAsked(_)
                | P::ToolRequired(_)
                | P::ApprovalResolved(_)
                | P::QuestionAnswered(_)
                | P::ToolResolved(_)
                | P::TurnEnded(_)
                | P::SandboxCreated(_)
                | P::SandboxPaused(_)
                | P::SandboxResumed(_)
        );
        if !relevant {
            return false;
        }
        let at = event.created_at;
        if !self.sessions.contains_key(id) {
            self.sessions
                .insert(id.to_string(), SessionWaits::default());
        }
        let Some(waits) = self.sessions.get_mut(id) else {
            return false;
        };
        let changed = apply_to_waits(waits, &event.payload, at);
        if changed {
            self.versions += 1;
            waits.version = self.versions;
        }
        changed
    }

    /// The stream skipped events (a truncated replay): no clock is whole any more.
    pub(crate) fn gap(&mut self) {
        for waits in self.sessions.values_mut() {
            waits.clock.gap();
            self.versions += 1;
            waits.version = self.versions;
        }
    }

    /// The session is gone.
    pub(crate) fn remove(&mut self, id: &str) {
        self.sessions.remove(id);
    }

    /// A complete listing: sessions not in it are gone.
    pub(crate) fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.sessions.retain(|id, _| keep(id));
    }
}

/// A resolved call leaves; whether it was waiting.
fn resolve(actions: &mut Actions, call: &str) -> bool {
    let was = actions.pending().iter().any(|a| a.call_id == call);
    actions.resolved(call);
    was
}

/// `handed` in place of `clock` when only `handed` is known from the workspace's start
/// (the published flag kept from either); whether it was taken.
fn adopt(clock: &mut WorkspaceClock, handed: WorkspaceClock) -> bool {
    if clock.is_complete() || !handed.is_complete() {
        return false;
    }
    let published = clock.is_published() || handed.is_published();
    *clock = handed;
    clock.set_published(published);
    true
}

/// What `payload` (at `at`) changes in a session's waits; gives whether anything did.
fn apply_to_waits(waits: &mut SessionWaits, payload: &EventPayload, at: Option<i64>) -> bool {
    use EventPayload as P;
    // Each change says itself: no copy of the waits per event to compare with.
    let clock = waits.clock;
    let actions = &mut waits.actions;
    match payload {
        P::ApprovalRequested(a) => {
            actions.asked(
                RequiredActionKind::Approval,
                &a.tool_call_id,
                &a.name,
                &a.args,
                at,
            );
            actions.set_approval_details(&a.tool_call_id, &a.name, a.args.clone(), a.sensitive);
            true
        }
        P::QuestionAsked(q) => {
            let args = serde_json::Value::String(q.question.clone());
            actions.asked(RequiredActionKind::Question, &q.tool_call_id, "", &args, at);
            actions.set_question_details(
                &q.tool_call_id,
                &q.question,
                q.options.clone(),
                q.allow_freeform,
            );
            true
        }
        P::ToolRequired(f) => {
            actions.asked(
                RequiredActionKind::FunctionCall,
                &f.tool_call_id,
                &f.name,
                &f.arguments,
                at,
            );
            true
        }
        P::ApprovalResolved(a) => resolve(actions, &a.tool_call_id),
        P::QuestionAnswered(q) => resolve(actions, &q.tool_call_id),
        P::ToolResolved(f) => resolve(actions, &f.tool_call_id),
        // Nothing outlives its turn.
        P::TurnEnded(_) => {
            let any = !actions.is_empty();
            if any {
                actions.replace(&[]);
            }
            any
        }
        P::SandboxCreated(_) => {
            waits.clock.created(at);
            waits.clock != clock
        }
        P::SandboxPaused(_) => {
            waits.clock.paused(at);
            waits.clock != clock
        }
        P::SandboxResumed(_) => {
            waits.clock.resumed(at);
            waits.clock != clock
        }
        _ => false,
    }
}
