//! The words an event family is told with, in one module per family: the transcript, the
//! Events pane, the screen-reader lines, search, the Markdown export and the send notices
//! all say them, so a decision reads "denied" everywhere (the export once said "refused"),
//! and a word changed here changes on every screen and in every file at once.
//!
//! Each surface cleans the server's text its own way (inert for the terminal, escaped for
//! Markdown, one short line for speech) and hands the cleaned parts to these functions,
//! which say them in the same words; what a surface adds around them (marks, colour,
//! Markdown framing) stays with it. The families are those of
//! [`gobare_api::event_family`].

pub(crate) mod conversation;
pub(crate) mod decisions;
pub(crate) mod turns;
pub(crate) mod work;
pub(crate) mod workspace;

/// An unknown count or size, said as it is shown: `?`.
pub(crate) fn or_unknown<T: std::fmt::Display>(v: Option<T>) -> impl std::fmt::Display {
    std::fmt::from_fn(move |f| match &v {
        Some(v) => v.fmt(f),
        None => f.write_str("?"),
    })
}

/// The queue's words where the send notices read them (`vocabulary::queue::queued`).
pub(crate) mod queue {
    pub(crate) use super::conversation::queued;
}
