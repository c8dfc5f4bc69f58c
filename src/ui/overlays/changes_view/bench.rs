//! The changes view's first frame as the benches call it (`benches/changes.rs`).

use super::{ChangesView, ViewFile};
use crate::changes::session_changes::{Range, SessionChanges};
use crate::ui::overlays::Overlay;
use crate::ui::theme::{Depth, Theme};
use gobare_api::model::Event;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

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
