//! The decision inbox: every approval, question and function call pending across the
//! fleet (crews included), each with its deadline ([`crate::deadline`]), its session and
//! the request in one sanitized line, soonest deadline first and the unknown after the
//! known. Pure: built from the fleet model at a given time.

use super::model::FleetModel;
use super::waits::SessionWaits;
use crate::deadline::{self, Deadline, WorkspaceClock};
use crate::session::actions::PendingAction;
use gobare_api::model::RequiredActionKind;
use gobare_api::text;
use std::collections::{HashMap, HashSet};

/// Characters of a session's name kept in a row.
const SESSION_CHARS: usize = 60;
/// Characters of a request kept in a row (the deciding panel shows it whole).
const REQUEST_CHARS: usize = 300;

/// One pending action, as the inbox lists it. Every string is sanitized to one line.
#[derive(Debug, Clone, PartialEq)]
pub struct InboxItem {
    pub session_id: String,
    pub call_id: String,
    pub kind: RequiredActionKind,
    pub deadline: Deadline,
    /// The session's title, else its first message, else its id.
    pub session: String,
    /// What is asked: the tool and its command, the question and its options, the function
    /// and its arguments.
    pub request: String,
    /// An approval asked as sensitive: approving takes a second `y`.
    pub sensitive: bool,
    /// Listed by the session resource, or answerable by its call id alone (approvals and
    /// questions); a function call seen only as an event waits for the read that gives
    /// its turn (§14.9).
    pub answerable: bool,
    pub created_at: Option<i64>,
    /// What the deadline is computed from again as the clock moves.
    expires_at: Option<i64>,
    clock: WorkspaceClock,
}

impl InboxItem {
    /// Why its deadline is unknown (meaningful when it is).
    pub fn unknown_why(&self) -> crate::deadline::Unknown {
        self.clock.why_unknown()
    }

    /// The deadline as of `now` (the text and the clock it counts from stay).
    fn time(&mut self, lifetime_ms: i64, now: i64) {
        self.deadline =
            deadline::deadline(&self.kind, self.expires_at, &self.clock, lifetime_ms, now);
    }
}

/// Every pending action of the fleet, soonest deadline first (unknown deadlines after the
/// known, then the ones nothing ends), then the oldest asked first.
pub fn items(model: &FleetModel, lifetime_ms: i64, now: i64) -> Vec<InboxItem> {
    let mut items = Vec::new();
    for (id, waits) in model.waits().waiting() {
        push_session(&mut items, model, id, waits, lifetime_ms, now);
    }
    sort(&mut items, now);
    items
}

/// The items of session `id`, appended to `items`.
fn push_session(
    items: &mut Vec<InboxItem>,
    model: &FleetModel,
    id: &str,
    waits: &SessionWaits,
    lifetime_ms: i64,
    now: i64,
) {
    let session = session_name(model, id);
    items.extend(
        waits
            .actions
            .pending()
            .iter()
            .filter(|a| !matches!(a.kind, RequiredActionKind::Other(_)))
            .map(|a| item(id, &session, waits, a, lifetime_ms, now)),
    );
}

/// The inbox's items kept from frame to frame: after a change of the fleet only the
/// sessions whose waits or row moved on are gathered again (their text made safe once),
/// the rest are only timed and sorted again. The same items as [`items`] gives.
#[derive(Debug, Clone, Default)]
pub struct Gathered {
    items: Vec<InboxItem>,
    /// What each session's items were gathered from: its row's and its waits' versions.
    seen: HashMap<String, (u64, u64)>,
    /// The model (instance, generation) last gathered from.
    model: Option<(u64, u64)>,
}

impl Gathered {
    pub fn items(&self) -> &[InboxItem] {
        &self.items
    }

    /// Forgets everything: the next update gathers every session.
    pub fn clear(&mut self) {
        *self = Gathered::default();
    }

    /// The items as of `model` at `now`, sorted.
    pub fn update(&mut self, model: &FleetModel, lifetime_ms: i64, now: i64) {
        let version = model.version();
        if self
            .model
            .is_some_and(|(instance, _)| instance != version.0)
        {
            self.clear();
        }
        if self.model != Some(version) {
            self.model = Some(version);
            let mut stale: HashSet<&str> = HashSet::new();
            let mut waiting: HashSet<&str> = HashSet::new();
            for (id, waits) in model.waits().waiting() {
                waiting.insert(id);
                let key = (model.get(id).map_or(0, |r| r.version), waits.version());
                if self.seen.get(id) != Some(&key) {
                    stale.insert(id);
                }
            }
            if !stale.is_empty() || self.seen.len() != waiting.len() {
                self.items.retain(|i| {
                    waiting.contains(i.session_id.as_str())
                        && !stale.contains(i.session_id.as_str())
                });
                self.seen.retain(|id, _| waiting.contains(id.as_str()));
                for id in stale {
                    let Some(waits) = model.waits().get(id) else {
                        continue;
                    };
                    push_session(&mut self.items, model, id, waits, lifetime_ms, now);
                    let key = (model.get(id).map_or(0, |r| r.version), waits.version());
                    self.seen.insert(id.to_string(), key);
                }
            }
        }
        retime(&mut self.items, lifetime_ms, now);
    }
}

/// The same items as of `now`: their deadlines again, and their order. What a clock's
/// second changes, without gathering the text again.
pub fn retime(items: &mut [InboxItem], lifetime_ms: i64, now: i64) {
    for item in items.iter_mut() {
        item.time(lifetime_ms, now);
    }
    sort(items, now);
}

/// The inbox's order.
fn sort(items: &mut [InboxItem], now: i64) {
    items.sort_by(|a, b| {
        (a.deadline.sort_key(now), a.created_at.unwrap_or(i64::MAX))
            .cmp(&(b.deadline.sort_key(now), b.created_at.unwrap_or(i64::MAX)))
            .then_with(|| a.session_id.cmp(&b.session_id))
            .then_with(|| a.call_id.cmp(&b.call_id))
    });
}

fn session_name(model: &FleetModel, id: &str) -> String {
    // Labels are sanitized when the row is made; the id is server text too.
    match model.get(id).and_then(|r| r.label()) {
        Some(label) => text::one_line(label, SESSION_CHARS),
        None => text::one_line(id, SESSION_CHARS),
    }
}

fn item(
    id: &str,
    session: &str,
    waits: &SessionWaits,
    action: &PendingAction,
    lifetime_ms: i64,
    now: i64,
) -> InboxItem {
    let facts = &waits.actions;
    let (request, sensitive) = match &action.kind {
        // Only the event says `sensitive`, not the listing: unseen, it is taken as
        // sensitive (two `y`s), never as harmless.
        RequiredActionKind::Approval => (
            facts.request_line(action),
            facts.is_sensitive(&action.call_id) || !facts.knows_approval(&action.call_id),
        ),
        _ => (facts.request_line(action), false),
    };
    let answerable = action.resource.is_some() || action.kind != RequiredActionKind::FunctionCall;
    InboxItem {
        session_id: id.to_string(),
        call_id: action.call_id.clone(),
        kind: action.kind.clone(),
        deadline: deadline::deadline(
            &action.kind,
            action.expires_at,
            &waits.clock,
            lifetime_ms,
            now,
        ),
        session: session.to_string(),
        request: text::one_line(&request, REQUEST_CHARS),
        sensitive,
        answerable,
        created_at: action.created_at,
        expires_at: action.expires_at,
        clock: waits.clock,
    }
}

#[cfg(test)]
mod tests;
