//! What the session waits on: `required_actions` from the session resource (authoritative),
//! kept current between fetches by events (asked → add, resolved/answered → remove).

use super::text::short_args;
use gobare_api::model::{RequiredAction, RequiredActionKind};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PendingAction {
    pub(crate) kind: RequiredActionKind,
    pub(crate) call_id: String,
    /// `None` when only the event was seen (`tool.required` has no turn id, §14.9).
    pub(crate) turn_id: Option<String>,
    pub(crate) name: String,
    /// Short excerpt of the arguments, for display.
    pub(crate) args: String,
    pub(crate) created_at: Option<i64>,
    pub(crate) expires_at: Option<i64>,
    /// The full action as the server listed it (what the answer copies back).
    pub(crate) resource: Option<RequiredAction>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Actions {
    pending: Vec<PendingAction>,
}

impl Actions {
    pub(crate) fn pending(&self) -> &[PendingAction] {
        &self.pending
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The session's list replaces whatever the events suggested.
    pub(crate) fn replace(&mut self, list: &[RequiredAction]) -> bool {
        let next: Vec<PendingAction> = list
            .iter()
            .map(|a| PendingAction {
                kind: a.kind.clone(),
                call_id: a.call_id.clone(),
                turn_id: Some(a.turn_id.clone()),
                name: a.name.clone().unwrap_or_default(),
                args: short_args(&a.arguments, 200),
                created_at: a.created_at,
                expires_at: a.expires_at,
                resource: Some(a.clone()),
            })
            .collect();
        let changed = next != self.pending;
        self.pending = next;
        changed
    }

    /// An asking event, until the next session fetch confirms it.
    pub(crate) fn asked(
        &mut self,
        kind: RequiredActionKind,
        call_id: &str,
        name: &str,
        args: &serde_json::Value,
        at: Option<i64>,
    ) {
        if self.pending.iter().any(|a| a.call_id == call_id) {
            return;
        }
        self.pending.push(PendingAction {
            kind,
            call_id: call_id.to_string(),
            turn_id: None,
            name: name.to_string(),
            args: short_args(args, 200),
            created_at: at,
            expires_at: None,
            resource: None,
        });
    }

    pub(crate) fn resolved(&mut self, call_id: &str) {
        self.pending.retain(|a| a.call_id != call_id);
    }
}
