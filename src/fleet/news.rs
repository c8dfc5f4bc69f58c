//! One piece of the fleet's news: a session that came to need the user, whose turn
//! failed, or whose clock rang, with the line that says so.

use gobare_api::text;

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
