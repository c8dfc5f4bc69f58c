//! The decision inbox: every approval, question and function call pending across the
//! fleet (crews included), each with its deadline ([`crate::deadline`]), its session and
//! the request in one sanitized line, soonest deadline first and the unknown after the
//! known. Pure: built from the fleet model at a given time.

use super::model::FleetModel;
use super::waits::SessionWaits;
use crate::deadline::{self, Deadline};
use crate::session::actions::PendingAction;
use crate::session::text::short_args;
use gobare_api::model::RequiredActionKind;
use gobare_api::text;

/// Characters of a session's name kept in a row.
const SESSION_CHARS: usize = 60;
/// Characters of a request kept in a row (the deciding panel shows it whole).
const REQUEST_CHARS: usize = 300;
/// Options named in a question's row before "…".
const ROW_OPTIONS: usize = 6;

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
}

/// Every pending action of the fleet, soonest deadline first (unknown deadlines after the
/// known, then the ones nothing ends), then the oldest asked first.
pub fn items(model: &FleetModel, lifetime_ms: i64, now: i64) -> Vec<InboxItem> {
    let mut items: Vec<InboxItem> = model
        .waits()
        .waiting()
        .flat_map(|(id, waits)| {
            let session = session_name(model, id);
            waits
                .actions
                .pending()
                .iter()
                .filter(|a| !matches!(a.kind, RequiredActionKind::Other(_)))
                .map(move |a| item(id, &session, waits, a, lifetime_ms, now))
        })
        .collect();
    sort(&mut items, now);
    items
}

/// The inbox's order.
pub fn sort(items: &mut [InboxItem], now: i64) {
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
    let (request, sensitive) = match (&action.kind, &action.resource) {
        (RequiredActionKind::Approval, Some(listed)) => {
            let d = facts.approval(listed);
            // Only the event says `sensitive`, not the listing: unseen, it is taken as
            // sensitive (two `y`s), never as harmless.
            let sensitive = d.sensitive || !facts.knows_approval(&action.call_id);
            (
                format!("{} {}", d.name, short_args(&d.args, 200)),
                sensitive,
            )
        }
        (RequiredActionKind::Approval, None) => (
            format!("{} {}", action.name, action.args),
            facts.is_sensitive(&action.call_id),
        ),
        (RequiredActionKind::Question, _) => (question_line(facts, action), false),
        _ => (format!("{}({})", action.name, action.args), false),
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
    }
}

/// "Roll back or patch? [roll back · patch]".
fn question_line(facts: &crate::session::actions::Actions, action: &PendingAction) -> String {
    let question = match &action.resource {
        Some(listed) => facts.question(listed),
        None => facts.question_details(&action.call_id).unwrap_or_default(),
    };
    let mut line = question.question;
    if !question.options.is_empty() {
        let mut named: Vec<&str> = question
            .options
            .iter()
            .take(ROW_OPTIONS)
            .map(String::as_str)
            .collect();
        if question.options.len() > ROW_OPTIONS {
            named.push("…");
        }
        line.push_str(&format!(" [{}]", named.join(" · ")));
    }
    line
}

#[cfg(test)]
mod tests;
