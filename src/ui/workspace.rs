//! The Workspace pane: state and since-when, recent transitions, what to expect, repo,
//! preview and published URLs.

use super::component::{Ctx, PaneComponent};
use super::events::clock;
use super::pane::{self, Pane};
use super::styled::truncate;
use super::theme::Theme;
use crate::session::SessionView;
use gobare_api::model::WorkspaceState;
use gobare_api::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The Workspace pane's view state: how far it is scrolled from the top.
#[derive(Debug, Default)]
pub(crate) struct WorkspacePane {
    offset: u16,
}

impl PaneComponent for WorkspacePane {
    fn pane(&self) -> Pane {
        Pane::Workspace
    }

    fn title_detail(&self, ctx: &Ctx) -> String {
        format!("· {} ", ctx.view.workspace().label())
    }

    fn scroll_by(&mut self, lines: i64) {
        self.offset = pane::offset_by(self.offset, lines);
    }

    fn scroll_home(&mut self) {
        self.offset = 0;
    }

    fn rows_wanted(&self, width: u16, ctx: &Ctx) -> Option<u16> {
        let n = lines(ctx.view, usize::from(width), ctx.theme).len();
        Some(u16::try_from(n).unwrap_or(u16::MAX))
    }

    fn render(&mut self, frame: &mut Frame, inner: Rect, ctx: &Ctx) {
        let lines = lines(ctx.view, inner.width as usize, ctx.theme);
        pane::scrolled(frame, inner, lines, &mut self.offset);
    }
}

fn lines(view: &SessionView, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let ws = view.workspace();
    let mut out = Vec::new();
    let state_style = state_style(ws.state(), theme);
    let mut head = vec![Span::styled(ws.label().to_string(), state_style)];
    if let Some(since) = ws.since_ms() {
        head.push(Span::styled(format!("  since {}", clock(since)), theme.dim));
    }
    out.push(Line::from(head));
    if let Some(hint) = ws.hint() {
        out.push(truncate(Line::styled(hint, theme.dim), w));
    }
    if let Some(err) = ws.recovery_error() {
        for l in text::wrap(err, w) {
            out.push(Line::styled(l, theme.error));
        }
    }
    if ws.transitions().len() > 1 {
        let path: Vec<&str> = ws
            .transitions()
            .iter()
            .map(|(s, _)| s.as_ref().map_or("unknown", |s| s.as_str()))
            .collect();
        out.push(truncate(
            Line::styled(text::line(&path.join(" → ")).into_owned(), theme.dim),
            w,
        ));
    }
    if let Some(repo) = ws.repo() {
        let branch = repo
            .branch
            .as_deref()
            .map(|b| format!(" @ {}", text::line(b)))
            .unwrap_or_default();
        out.push(truncate(
            Line::raw(format!("repo {}{branch}", text::line(&repo.full_name))),
            w,
        ));
        if let Some(err) = &repo.clone_error {
            out.push(truncate(
                Line::styled(format!("clone failed: {}", text::line(err)), theme.error),
                w,
            ));
        }
    }
    let preview = ws.preview();
    if let Some(url) = &preview.url {
        let port = preview.port.map(|p| format!(" (:{p})")).unwrap_or_default();
        out.push(truncate(
            Line::from(vec![
                Span::styled("preview ", theme.dim),
                Span::raw(format!("{}{port}", text::line(url))),
            ]),
            w,
        ));
        out.push(Line::styled(
            "  needs a token; share the published URL",
            theme.dim,
        ));
    }
    match &preview.published_url {
        Some(url) => out.push(truncate(
            Line::from(vec![
                Span::styled("published ", theme.dim),
                Span::styled(text::line(url).into_owned(), theme.ok),
            ]),
            w,
        )),
        None if preview.url.is_some() => out.push(Line::styled("not published", theme.dim)),
        None => {}
    }
    out
}

fn state_style(state: Option<&WorkspaceState>, theme: &Theme) -> Style {
    match state {
        Some(WorkspaceState::Running) => theme.ok,
        Some(WorkspaceState::Paused | WorkspaceState::Recovering | WorkspaceState::Destroyed) => {
            theme.warning
        }
        Some(WorkspaceState::RecoveryFailed) => theme.error,
        _ => theme.dim,
    }
}
