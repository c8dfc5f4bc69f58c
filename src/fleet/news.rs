//! One piece of the fleet's news: a session that came to need the user, whose turn
//! failed, or whose clock rang, with the line that says so.

use gobare_api::text;

use super::model::{FleetModel, FleetRow};

/// A session that came to need the user or whose turn failed, and the line that says so
/// ("Nightly: needs you: approval", "Nightly: turn failed"; sanitized, one line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetNews {
    pub id: String,
    pub line: String,
    /// What it is about, for `[notify] on`.
    pub(crate) kind: crate::notify::kind::NotifyKind,
    /// The session's title or first message (sanitized, one line; empty when unknown).
    pub(crate) title: String,
    /// A function call's deadline, for a deadline's news.
    pub(crate) expires_at: Option<i64>,
    /// The call it is about, while it waits: news of a call resolved before it was told
    /// is never told.
    pub(crate) call: Option<String>,
    /// What happened, short ("approval", "turn failed"), for a line that names several.
    pub(crate) what: String,
    /// How many pieces of news this one tells (several gathered into one: see
    /// [`super::pacer`]).
    pub(crate) count: usize,
    /// How many sessions need the person as it is told: the fleet's one count
    /// ([`FleetModel::needing_you`], the header's), set when the pacer tells it.
    pub(crate) need_you: Option<usize>,
}

impl FleetNews {
    /// The session as a line names it: its title, else its id's start.
    pub(crate) fn name(&self) -> String {
        if self.title.is_empty() {
            format!("session {}", text::one_line(&self.id, 8))
        } else {
            self.title.clone()
        }
    }
}

/// Whether `news` is still so: its session is there and the call it is about still waits.
pub(crate) fn still_true(model: &FleetModel, news: &FleetNews) -> bool {
    let Some(row) = model.get(&news.id) else {
        return false;
    };
    let Some(call) = &news.call else {
        return true;
    };
    row.waiting.iter().any(|(c, _)| c == call)
        || model
            .waits()
            .get(&news.id)
            .is_some_and(|w| w.actions.pending().iter().any(|a| &a.call_id == call))
}

/// What to say of session `id`, which came to need the user for `call`.
pub(crate) fn announcement(model: &FleetModel, id: String, call: &str) -> Option<FleetNews> {
    let row = model.get(&id)?;
    let line = row.needs_you_line()?;
    let needs = row.needs()?;
    let kind = crate::notify::kind::NotifyKind::of_needs(needs);
    let title = news_title(row);
    Some(FleetNews {
        id,
        line,
        kind,
        title,
        expires_at: None,
        call: Some(call.to_string()),
        what: needs.as_str().replace('_', " "),
        count: 1,
        need_you: None,
    })
}

/// A row's name as a notify command reads it.
pub(crate) fn news_title(row: &FleetRow) -> String {
    row.label()
        .map(|l| gobare_api::text::one_line(l, 60))
        .unwrap_or_default()
}
