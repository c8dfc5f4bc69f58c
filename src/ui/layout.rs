//! The whole screen: panes arranged for the terminal's size, the composer's region and the
//! status bar. `areas` is public so the app places the input box where `draw` left room.

use super::state::{Pane, UiState};
use super::theme::Theme;
use super::{events, footer, transcript, turn, workspace};
use crate::session::SessionView;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Columns from which panes sit side by side.
pub(crate) const WIDE_COLS: u16 = 140;
/// Below either of these only the focused pane is shown, with a tab strip.
pub(crate) const SMALL_COLS: u16 = 80;
pub(crate) const SMALL_ROWS: u16 = 24;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Areas {
    /// The panes on screen and where; the focused one only when zoomed or small.
    pub panes: Vec<(Pane, Rect)>,
    /// The tab strip of the single-pane layout.
    pub(crate) tabs: Option<Rect>,
    /// Where the app draws the input box.
    pub composer: Rect,
    /// The status bar (last row).
    pub(crate) footer: Rect,
}

pub fn areas(size: Rect, ui: &UiState, composer_height: u16) -> Areas {
    let [body, composer, footer] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(composer_height.min(size.height.saturating_sub(1))),
        Constraint::Length(1.min(size.height)),
    ])
    .areas(size);
    let small = size.width < SMALL_COLS || size.height < SMALL_ROWS;
    if small {
        let [tabs, pane] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(body);
        return Areas {
            panes: vec![(single_pane(ui), pane)],
            tabs: Some(tabs),
            composer,
            footer,
        };
    }
    if ui.zoomed {
        return Areas {
            panes: vec![(ui.focus, body)],
            tabs: None,
            composer,
            footer,
        };
    }
    let panes = if size.width >= WIDE_COLS {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                .areas(body);
        let [ev, tu, ws] = Layout::vertical([
            Constraint::Percentage(50),
            Constraint::Percentage(25),
            Constraint::Percentage(25),
        ])
        .areas(right);
        vec![
            (Pane::Transcript, left),
            (Pane::Events, ev),
            (Pane::Turn, tu),
            (Pane::Workspace, ws),
        ]
    } else {
        let [tr, ev, bottom] = Layout::vertical([
            Constraint::Percentage(55),
            Constraint::Percentage(20),
            Constraint::Percentage(25),
        ])
        .areas(body);
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

/// Draws every pane and the status bar; the composer's region is left for the app.
pub fn draw(frame: &mut Frame, view: &SessionView, ui: &UiState, theme: &Theme) {
    let a = areas(frame.area(), ui, ui.composer_height);
    if let Some(tabs) = a.tabs {
        draw_tabs(frame, tabs, ui, theme);
    }
    for (pane, rect) in &a.panes {
        let focused = *pane == ui.focus && !ui.input_focused;
        let block = pane_block(*pane, view, ui, focused, theme);
        match pane {
            Pane::Transcript => transcript::draw(frame, *rect, view, ui, theme, block),
            Pane::Events => events::draw(frame, *rect, view, ui, theme, block),
            Pane::Turn => turn::draw(frame, *rect, view, ui, theme, block),
            Pane::Workspace => workspace::draw(frame, *rect, view, ui, theme, block),
        }
    }
    footer::draw(frame, a.footer, view, theme);
}

fn pane_block<'a>(
    pane: Pane,
    view: &SessionView,
    ui: &UiState,
    focused: bool,
    theme: &Theme,
) -> Block<'a> {
    let mut title = format!(" {} ", pane.title());
    match pane {
        Pane::Events => {
            if !ui.event_filter.is_empty() {
                title.push_str(&format!(
                    "[type ~ {}] ",
                    gobare_api::text::line(&ui.event_filter)
                ));
            }
            if !ui.hide_deltas {
                title.push_str("[+deltas] ");
            }
        }
        Pane::Turn => {
            if let Some(p) = view.turn_phase() {
                title.push_str(&format!("· {} ", gobare_api::text::line(p.label())));
            }
        }
        Pane::Workspace => title.push_str(&format!("· {} ", view.workspace().label())),
        Pane::Transcript => {}
    }
    if !ui.follows(pane) {
        title.push_str("(scrolled) ");
    }
    let (border, title_style) = if focused {
        (
            theme.border_focused,
            theme.border_focused.patch(theme.title),
        )
    } else {
        (theme.border, theme.title)
    };
    Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title, title_style))
}

/// The one pane a small terminal shows: the transcript while typing (what a reply answers),
/// the focused pane while navigating.
fn single_pane(ui: &UiState) -> Pane {
    if ui.input_focused {
        Pane::Transcript
    } else {
        ui.focus
    }
}

fn draw_tabs(frame: &mut Frame, area: Rect, ui: &UiState, theme: &Theme) {
    let mut spans = Vec::new();
    for p in Pane::ALL {
        let style = if p == single_pane(ui) {
            theme.border_focused.patch(theme.title)
        } else {
            theme.dim
        };
        spans.push(Span::styled(format!(" {} ", p.title()), style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
