//! Where everything goes for the terminal's size: the panes, the tab strip of the small
//! layout, the input area and the status bar. The Turn and Workspace panes take the rows
//! their content needs (up to a quarter of the height), never rows they leave empty.

use super::pane::Pane;
use ratatui::layout::{Constraint, Layout, Rect};

/// Columns from which panes sit side by side.
pub(crate) const WIDE_COLS: u16 = 140;
/// Below either of these only one pane is shown, with a tab strip.
pub(crate) const SMALL_COLS: u16 = 80;
pub(crate) const SMALL_ROWS: u16 = 24;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Areas {
    /// The panes on screen and where; one when zoomed or small.
    pub panes: Vec<(Pane, Rect)>,
    /// The tab strip of the single-pane layout.
    pub(crate) tabs: Option<Rect>,
    /// The input area: the required-action prompt, the input box or a confirmation.
    pub composer: Rect,
    /// The status bar (last row).
    pub(crate) footer: Rect,
}

/// What the layout depends on besides the terminal's size.
pub(crate) struct LayoutSpec<'a> {
    pub(crate) focus: Pane,
    pub(crate) zoomed: bool,
    /// The input box has the keys (a small terminal then shows the transcript).
    pub(crate) typing: bool,
    pub(crate) composer_height: u16,
    /// Rows a pane's content needs at an inner width, for panes that should not take more.
    pub(crate) rows_wanted: &'a mut dyn FnMut(Pane, u16) -> Option<u16>,
}

pub(crate) fn areas(size: Rect, spec: &mut LayoutSpec) -> Areas {
    let [body, composer, footer] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(spec.composer_height.min(size.height.saturating_sub(1))),
        Constraint::Length(1.min(size.height)),
    ])
    .areas(size);
    let small = size.width < SMALL_COLS || size.height < SMALL_ROWS;
    if small {
        let [tabs, pane] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(body);
        return Areas {
            panes: vec![(single_pane(spec), pane)],
            tabs: Some(tabs),
            composer,
            footer,
        };
    }
    if spec.zoomed {
        return Areas {
            panes: vec![(spec.focus, body)],
            tabs: None,
            composer,
            footer,
        };
    }
    // A short pane's rows: what its content needs plus the border, within a quarter.
    let mut fitted = |pane: Pane, width: u16, cap: u16| -> u16 {
        let inner_width = width.saturating_sub(2);
        let want = (spec.rows_wanted)(pane, inner_width).map_or(cap, |rows| rows + 2);
        want.clamp(3, cap.max(3))
    };
    let panes = if size.width >= WIDE_COLS {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                .areas(body);
        let cap = right.height / 4;
        let [ev, tu, ws] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(fitted(Pane::Turn, right.width, cap)),
            Constraint::Length(fitted(Pane::Workspace, right.width, cap)),
        ])
        .areas(right);
        vec![
            (Pane::Transcript, left),
            (Pane::Events, ev),
            (Pane::Turn, tu),
            (Pane::Workspace, ws),
        ]
    } else {
        let half = body.width / 2;
        let cap = body.height / 4;
        let bottom = fitted(Pane::Turn, half, cap).max(fitted(Pane::Workspace, half, cap));
        let [top, bottom] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(bottom)]).areas(body);
        let [tr, ev] = Layout::vertical([Constraint::Fill(55), Constraint::Fill(20)]).areas(top);
        let [tu, ws] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(bottom);
        vec![
            (Pane::Transcript, tr),
            (Pane::Events, ev),
            (Pane::Turn, tu),
            (Pane::Workspace, ws),
        ]
    };
    Areas {
        panes,
        tabs: None,
        composer,
        footer,
    }
}

/// The one pane a small terminal shows: the transcript while typing (what a reply answers),
/// the focused pane while navigating.
pub(crate) fn single_pane(spec: &LayoutSpec) -> Pane {
    if spec.typing {
        Pane::Transcript
    } else {
        spec.focus
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rows: Option<u16>) -> impl Fn(Pane, u16) -> Option<u16> {
        move |pane, _| match pane {
            Pane::Turn | Pane::Workspace => rows,
            _ => None,
        }
    }

    fn layout(w: u16, h: u16, rows: Option<u16>) -> Areas {
        let mut wanted = spec(rows);
        areas(
            Rect::new(0, 0, w, h),
            &mut LayoutSpec {
                focus: Pane::Events,
                zoomed: false,
                typing: true,
                composer_height: 3,
                rows_wanted: &mut wanted,
            },
        )
    }

    fn height(a: &Areas, pane: Pane) -> u16 {
        a.panes.iter().find(|(p, _)| *p == pane).unwrap().1.height
    }

    #[test]
    fn short_panes_take_only_the_rows_their_content_needs() {
        for (w, h) in [(110, 35), (160, 48)] {
            let a = layout(w, h, Some(2));
            assert_eq!(height(&a, Pane::Turn), 4, "{w}x{h}");
            assert_eq!(height(&a, Pane::Workspace), 4, "{w}x{h}");
            let body: u16 = h - 3 - 1;
            let used: u16 = if w >= WIDE_COLS {
                height(&a, Pane::Events) + 8
            } else {
                height(&a, Pane::Transcript) + height(&a, Pane::Events) + 4
            };
            assert_eq!(
                used, body,
                "the rest goes to the transcript and events: {w}x{h}"
            );
        }
    }

    #[test]
    fn long_content_is_capped_at_a_quarter() {
        let a = layout(110, 40, Some(100));
        assert_eq!(height(&a, Pane::Turn), (40 - 4) / 4);
    }

    #[test]
    fn a_small_terminal_shows_the_transcript_while_typing() {
        let a = layout(70, 20, Some(2));
        assert_eq!(a.panes.len(), 1);
        assert_eq!(a.panes[0].0, Pane::Transcript);
        assert!(a.tabs.is_some());
    }
}
