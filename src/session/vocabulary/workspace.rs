//! The workspace, its outputs and the stream itself: previews, recovery, artifacts, a
//! truncated replay, and event types this build does not know.

use std::fmt::Display;

pub(crate) const PREVIEW_READY: &str = "preview ready";
pub(crate) const RECOVERY_FAILED: &str = "workspace recovery failed";
/// [`RECOVERY_FAILED`] as the export heads it, an error.
pub(crate) const RECOVERY_FAILED_HEADING: &str = "Error: workspace recovery failed";
pub(crate) const ARTIFACT: &str = "artifact";

/// `workspace created` / `paused` / `resumed`.
pub(crate) const CREATED: &str = "workspace created";
pub(crate) const PAUSED: &str = "workspace paused";
pub(crate) const RESUMED: &str = "workspace resumed";

/// The server cut a long replay at `from` (the stream task collects the rest at once, so
/// nothing is lost); `unit` is what `from` counts (`seq` on screen, `event` said).
pub(crate) fn replay_cut(unit: &str, from: Option<u64>) -> impl Display {
    std::fmt::from_fn(move |f| {
        write!(
            f,
            "long history: the server cut the replay at {unit} {}; the rest is being collected",
            super::or_unknown(from)
        )
    })
}

/// An event of a type this build does not know, as a label.
pub(crate) const UNKNOWN_EVENT: &str = "event";
pub(crate) const UNKNOWN_EVENT_HEADING: &str = "Event";
