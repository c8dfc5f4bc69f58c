//! What both fronts use and neither owns: the send executor and its outcomes, required actions,
//! the session's file on disk and its saving, notifications, the app's settings, frame pacing,
//! heap trimming and counters. Below the fronts: nothing here imports `session` or `fleet`.

pub(crate) mod abort_on_drop;
pub(crate) mod announcements;
#[cfg(debug_assertions)]
pub mod debug_panic;
pub(crate) mod frame;
pub(crate) mod heap;
pub(crate) mod jobs;
pub(crate) mod notifications;
pub mod required;
pub mod saved_session;
pub(crate) mod saving;
pub mod send_outcome;
pub mod sender;
pub(crate) mod settings;
pub(crate) mod shell;
pub(crate) mod stats;
pub(crate) mod unsaved;
