//! The changes' hot paths as the benches call them (`benches/changes.rs`): composing a
//! session's `file.changed` events into a patch, and the changes view's first frame.

use super::session_changes::{Range, SessionChanges};
use crate::ui::changes_view::{ChangesView, ViewFile};
use crate::ui::overlay::Overlay;
use crate::ui::theme::{Depth, Theme};
use gobare_api::model::Event;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

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

/// The view's files for `events` (composed once, outside what is timed).
pub struct Files(Vec<ViewFile>);

pub fn view_files(events: &[Event]) -> Files {
    let mut changes = SessionChanges::new(Range::Session);
    for e in events {
        changes.feed(e);
    }
    Files(ViewFile::list(&changes))
}

/// Opens the view on `files` and draws its first frame at `width`×`height`; returns the
/// drawn buffer's cell count (so the work is not optimised away).
pub fn first_frame(files: &Files, width: u16, height: u16) -> usize {
    let mut view = ChangesView::loading("the session");
    view.loaded(Ok(files.0.clone()));
    let mut buf = Buffer::empty(Rect::new(0, 0, width, height));
    view.render(buf.area, &mut buf, &Theme::dark(Depth::Indexed256));
    buf.content.len()
}
