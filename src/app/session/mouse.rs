//! What is under the mouse pointer, from the areas of the last frame.

use crate::ui::{Areas, Pane};
use ratatui::layout::{Position, Rect};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Pane(Pane),
    /// A tab of the single-pane layout's strip.
    Tab(Pane),
    Composer,
    Nothing,
}

pub(crate) fn target_at(areas: &Areas, column: u16, row: u16) -> Target {
    let at = Position::new(column, row);
    if let Some(tabs) = areas.tabs
        && tabs.contains(at)
    {
        return tab_at(tabs, column).map_or(Target::Nothing, Target::Tab);
    }
    if let Some((pane, _)) = areas.panes.iter().find(|(_, r)| r.contains(at)) {
        return Target::Pane(*pane);
    }
    if areas.composer.contains(at) {
        return Target::Composer;
    }
    Target::Nothing
}

/// The tab strip draws `" Title "` for each pane, left to right (see `ui::layout`).
fn tab_at(strip: Rect, column: u16) -> Option<Pane> {
    let mut x = strip.x;
    for pane in Pane::ALL {
        let w = u16::try_from(pane.title().chars().count() + 2).unwrap_or(u16::MAX);
        if column >= x && column < x.saturating_add(w) {
            return Some(pane);
        }
        x = x.saturating_add(w);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::layout::{LayoutSpec, areas};

    fn layout(width: u16, height: u16) -> Areas {
        areas(
            Rect::new(0, 0, width, height),
            &mut LayoutSpec {
                focus: Pane::Transcript,
                zoomed: false,
                typing: true,
                composer_height: 3,
                rows_wanted: &mut |_, _| None,
            },
        )
    }

    #[test]
    fn finds_panes_composer_and_tabs() {
        let wide = layout(160, 48);
        let (pane, rect) = wide.panes[1];
        assert_eq!(target_at(&wide, rect.x + 1, rect.y + 1), Target::Pane(pane));
        assert_eq!(
            target_at(&wide, wide.composer.x + 2, wide.composer.y + 1),
            Target::Composer
        );
        assert_eq!(target_at(&wide, 0, wide.footer.y), Target::Nothing);

        let small = layout(60, 20);
        let tabs = small.tabs.unwrap();
        assert_eq!(target_at(&small, 1, tabs.y), Target::Tab(Pane::Transcript));
        // " Transcript " is 12 columns; " Events " follows.
        assert_eq!(target_at(&small, 13, tabs.y), Target::Tab(Pane::Events));
    }
}
