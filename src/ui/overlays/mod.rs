//! Overlays: a view that covers most of the screen and takes every key while it is open
//! (a pager over an artifact, a list of artifacts, a file tree, the inspector of one event).
//! The screen owns at most one; the app hears back only what the overlay asks it to do.

pub(crate) mod artifact_list;
mod asked_frame;
pub mod changes_view;
pub(crate) mod file_browser;
pub(crate) mod inspector;
pub(crate) mod labels_editor;
mod line_edit;
pub(crate) mod model_picker;
pub(crate) mod pager;
pub(crate) mod rules_list;
pub(crate) mod save_progress;

use super::theme::Theme;
use crate::keys::table::view_key;
pub(crate) use crate::keys::view::{ViewKey, ViewScope};
use crossterm::event::KeyEvent;
use gobare_api::model::Artifact;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// What an overlay made of a key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OverlayKey {
    /// The overlay used it (scrolled, moved its selection, …): redraw.
    Handled,
    /// Not a key for it: nothing happens.
    Ignored,
    /// Close it; the keys go back to the mode it was opened from.
    Close,
    /// Something only the app can do (a fetch, a save, a copy).
    Act(OverlayAction),
}

/// Requests an overlay makes of the app. Variants are added as overlays need them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OverlayAction {
    /// Show this artifact's content (text in a pager; binary: its size and type).
    OpenArtifact(Box<Artifact>),
    /// Save these artifacts to the download directory; `overwrite` once the person said so.
    SaveArtifacts {
        artifacts: Vec<Artifact>,
        overwrite: bool,
    },
    /// Save one turn's tar archive to the download directory.
    SaveArchive { turn: String, overwrite: bool },
    /// Read the workspace's file tree again; `snapshot` takes a new snapshot first.
    ListFiles { snapshot: bool },
    /// Show one workspace file's content (its path relative to `/workspace`).
    OpenFile { path: String },
    /// Send a review of the changes to the agent (a steer while the turn runs).
    SendReview { text: String },
    /// Read the changes view's history again (a running turn has changed more since).
    ReloadChanges,
    /// Replace the session's rules as the list showed them with the list it asked about.
    ReplaceRules(Box<rules_list::Replacement>),
    /// Set the session's labels to this whole set (empty clears them).
    SetLabels(std::collections::BTreeMap<String, String>),
    /// Move the session to `model` on `credential`.
    SwitchModel { model: String, credential: String },
}

/// A view that covers the screen and has the keys while it is open. `Any` lets the app
/// reach the overlay it opened to hand it what a background job brought back.
pub(crate) trait Overlay: std::any::Any {
    /// Draws it over `area` (the whole screen; it picks its own rectangle within).
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme);
    /// Which rows of the key table have the keys now.
    fn scope(&self) -> ViewScope;
    /// A key the table routed to it. Ctrl+C never reaches it (it always quits, asking first).
    fn handle(&mut self, key: ViewKey) -> OverlayKey;
    /// A key no row of its scope has: text where it reads text (a name being found), else
    /// nothing.
    fn unrouted(&mut self, key: KeyEvent) -> OverlayKey {
        let _ = key;
        OverlayKey::Ignored
    }
    /// Pasted text, where the overlay reads text now; `false` (dropped) elsewhere.
    fn paste(&mut self, text: &str) -> bool {
        let _ = text;
        false
    }
}

/// The rectangle overlays use: all of `area` but a one-cell margin where there is room.
pub(crate) fn area(area: Rect) -> Rect {
    let (mx, my) = (u16::from(area.width >= 40), u16::from(area.height >= 12));
    Rect {
        x: area.x + mx,
        y: area.y + my,
        width: area.width - 2 * mx,
        height: area.height - 2 * my,
    }
}

/// A key for the open `overlay`, as its scope's rows in the key table route it; a key no row
/// has is the overlay's to read as text, or nothing.
pub(crate) fn press(overlay: &mut dyn Overlay, key: KeyEvent) -> OverlayKey {
    match view_key(overlay.scope(), key.code, key.modifiers) {
        Some(meant) => overlay.handle(meant),
        None => overlay.unrouted(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_a_margin_only_where_there_is_room() {
        assert_eq!(area(Rect::new(0, 0, 160, 48)), Rect::new(1, 1, 158, 46));
        assert_eq!(area(Rect::new(0, 0, 30, 10)), Rect::new(0, 0, 30, 10));
    }
}
