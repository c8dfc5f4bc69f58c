//! The Workspace pane: state and since-when, what the next message will do, recent
//! transitions, repo and branch, preview and published URLs (linked by the screen), sandbox
//! usage.

use super::component::{Ctx, PaneComponent};
use super::pane::{self, Pane};
use super::text::frame_lines::FrameLines;
use super::text::styled::truncate;
use super::theme::Theme;
use super::usage_clock;
use crate::readable::times::clock;
use crate::readable::times::duration;
use crate::session::Session;
use crate::session::workspace::SandboxUsage;
use gobare_api::model::{Preview, Repo, Usage, WorkspaceState};
use gobare_api::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The Workspace pane's view state: how far it is scrolled from the top.
#[derive(Debug, Default)]
pub(crate) struct WorkspacePane {
    offset: u16,
    pub(super) lines: FrameLines,
    /// Slots and the request budget, as the app last gathered them.
    pub(super) budgets: crate::budget::Budgets,
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

    fn rows_wanted(&mut self, width: u16, ctx: &Ctx) -> Option<u16> {
        let budgets = &self.budgets;
        Some(
            self.lines
                .rows(width, || with_budgets(ctx, budgets, usize::from(width))),
        )
    }

    fn render(&mut self, frame: &mut Frame, inner: Rect, ctx: &Ctx) {
        let budgets = &self.budgets;
        let lines = self.lines.take(inner.width, || {
            with_budgets(ctx, budgets, usize::from(inner.width))
        });
        pane::scrolled(frame, inner, lines, &mut self.offset);
    }
}

/// The pane's lines, the budgets last ([`super::budget_view`]).
fn with_budgets(ctx: &Ctx, budgets: &crate::budget::Budgets, w: usize) -> Vec<Line<'static>> {
    let mut out = lines(ctx.view, w, ctx.theme);
    out.extend(super::budget_view::workspace_lines(
        ctx.view, budgets, w, ctx.theme,
    ));
    // Last: the budgets keep their place in a short pane.
    out.extend(super::policy_lines::lines(ctx.view, w, ctx.theme));
    out
}

fn lines(view: &Session, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let ws = view.workspace();
    let mut out = state_lines(view, w, theme);
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
        repo_lines(repo, w, theme, &mut out);
    }
    preview_lines(ws.preview(), w, theme, &mut out);
    if let Some(usage) = ws.usage() {
        let running = ws.state() == Some(&WorkspaceState::Running);
        usage_lines(usage, running, view.now_ms(), w, theme, &mut out);
        if let Some(minutes) = view.sandbox_budget_minutes() {
            out.push(truncate(
                budget_line(
                    minutes,
                    usage.session.sandbox_seconds,
                    running,
                    view.now_ms(),
                    usage.session.as_of,
                    theme,
                ),
                w,
            ));
        }
    }
    out
}

/// The state and since when, why it is so, what the next message will do, and why a
/// recovery failed.
fn state_lines(view: &Session, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let ws = view.workspace();
    let mut out = Vec::new();
    let state_style = state_style(ws.state(), theme);
    let mut head = vec![Span::styled(ws.label().to_string(), state_style)];
    if let Some(since) = ws.since_ms() {
        head.push(Span::styled(format!("  since {}", clock(since)), theme.dim));
    }
    out.push(Line::from(head));
    if let Some(hint) = ws.hint() {
        for l in text::wrap(hint, w) {
            out.push(Line::styled(l, theme.dim));
        }
    }
    let next = ws.next_message(view.turn_running(), view.turns().queue_len());
    for l in text::wrap(&next, w) {
        out.push(Line::styled(l, theme.accent));
    }
    if let Some(err) = ws.recovery_error() {
        for l in text::wrap(err, w) {
            out.push(Line::styled(l, theme.error));
        }
    }
    out
}

/// The repository and branch, and why its clone failed.
fn repo_lines(repo: &Repo, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
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

/// The preview's URL (it needs a token) and the published one, or that there is none.
fn preview_lines(preview: &Preview, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
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
}

/// Sandbox time, the session's then its crew's, and (while the workspace runs) why it grows
/// while nothing happens: a paused or destroyed workspace accrues nothing.
///
/// While it runs, the session's figure goes on from the server's `as_of` with the clock (a
/// running workspace accrues a second a second), so it never stands still between reads;
/// a read older than [`usage_clock::STALE_USAGE_MS`] says how old it is.
pub(crate) fn usage_lines(
    usage: &SandboxUsage,
    running: bool,
    now_ms: Option<i64>,
    w: usize,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let mut session = usage.session.clone();
    session.sandbox_seconds = usage_clock::counted_on(
        session.sandbox_seconds,
        usage.session.as_of,
        running,
        now_ms,
    );
    let mut line = usage_line("usage", &session, theme);
    if let (Some(now), Some(as_of)) = (now_ms, usage.session.as_of)
        && usage_clock::stale_for(Some(as_of), Some(now)).is_some()
    {
        line.spans.push(Span::styled(
            format!(" · read {}", crate::readable::times::ago(as_of, now)),
            theme.warning,
        ));
    }
    out.push(truncate(line, w));
    if let Some(crew) = &usage.crew {
        let label = format!("crew ({} sessions)", crew.sessions);
        out.push(truncate(usage_line(&label, crew, theme), w));
    }
    if running {
        out.push(truncate(
            Line::styled(
                "  an idle workspace keeps accruing until it pauses",
                theme.dim,
            ),
            w,
        ));
    }
}

/// `[budget] sandbox_minutes` against the session's sandbox time (as the usage line counts
/// it): how much is left, or that it was passed, so the bell it rang has a reason in view.
fn budget_line(
    minutes: u32,
    read_seconds: u64,
    running: bool,
    now_ms: Option<i64>,
    as_of: Option<i64>,
    theme: &Theme,
) -> Line<'static> {
    let used = usage_clock::counted_on(read_seconds, as_of, running, now_ms);
    let used_ms = i64::try_from(used.saturating_mul(1000)).unwrap_or(i64::MAX);
    let budget_ms = i64::from(minutes) * 60_000;
    let (state, style) = if used_ms >= budget_ms {
        (
            format!("passed by {}", duration(used_ms - budget_ms)),
            theme.warning,
        )
    } else {
        (format!("{} left", duration(budget_ms - used_ms)), theme.dim)
    };
    Line::from(vec![
        Span::styled("budget ", theme.dim),
        Span::raw(format!("{} sandbox", duration(budget_ms))),
        Span::styled(format!(" · {state}"), style),
    ])
}

fn usage_line(label: &str, usage: &Usage, theme: &Theme) -> Line<'static> {
    let secs = |s: u64| duration(i64::try_from(s.saturating_mul(1000)).unwrap_or(i64::MAX));
    Line::from(vec![
        Span::styled(format!("{label} "), theme.dim),
        Span::raw(format!("{} sandbox", secs(usage.sandbox_seconds))),
        Span::styled(
            format!(" · {} chargeable", secs(usage.chargeable_seconds)),
            theme.dim,
        ),
    ])
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

#[cfg(test)]
mod tests;
