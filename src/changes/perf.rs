//! Composing changes as the benches call it (`benches/changes.rs`): a session's
//! `file.changed` events into a patch, and the hunks the benches and tests feed in.

use super::session_changes::{Range, SessionChanges};
use gobare_api::model::Event;

/// The hunks turning `before` into `after`, as `file.changed.diff` carries them (no file
/// header): what the benches and tests feed in. diffy's, because similar's unified output
/// can number a hunk wrongly.
pub fn hunks(before: &str, after: &str) -> String {
    let patch = diffy::create_patch(before, after).to_string();
    patch
        .find("\n@@")
        .map_or(String::new(), |at| patch[at + 1..].to_string())
}

/// The whole session's changes of `events` as a patch.
pub fn patch_of(events: &[Event]) -> String {
    let mut changes = SessionChanges::new(Range::Session);
    for e in events {
        changes.feed(e);
    }
    let outcomes = changes.outcomes();
    super::patch::write_patch(
        outcomes
            .iter()
            .filter_map(|o| o.change.as_ref().ok().map(|d| (o.path.as_str(), d))),
    )
}
