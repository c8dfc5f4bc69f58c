//! The Turn pane: the current turn's phase, elapsed clock and steps, what was asked, the
//! model, todo progress, the tool in flight, queue, artifacts, error, what it waits on, and
//! the last few turns by their first words, duration and outcome.

use super::component::{Ctx, PaneComponent};
use super::pane::{self, Pane};
use super::text::frame_lines::FrameLines;
use super::text::styled::truncate;
use super::theme::Theme;
use crate::readable::times::duration;
use crate::session::Session;
use crate::session::turn::{TurnInfo, TurnPhase};
use gobare_api::model::{ArtifactsState, RequiredActionKind};
use gobare_api::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The Turn pane's view state: how far it is scrolled from the top.
#[derive(Debug, Default)]
pub(crate) struct TurnPane {
    offset: u16,
    pub(super) lines: FrameLines,
}

impl PaneComponent for TurnPane {
    fn pane(&self) -> Pane {
        Pane::Turn
    }

    fn title_detail(&self, ctx: &Ctx) -> String {
        ctx.view
            .turn_phase()
            .map(|p| format!("· {} ", text::line(p.label())))
            .unwrap_or_default()
    }

    fn scroll_by(&mut self, lines: i64) {
        self.offset = pane::offset_by(self.offset, lines);
    }

    fn scroll_home(&mut self) {
        self.offset = 0;
    }

    fn rows_wanted(&mut self, width: u16, ctx: &Ctx) -> Option<u16> {
        Some(
            self.lines
                .rows(width, || lines(ctx.view, usize::from(width), ctx.theme)),
        )
    }

    fn render(&mut self, frame: &mut Frame, inner: Rect, ctx: &Ctx) {
        let lines = self.lines.take(inner.width, || {
            lines(ctx.view, usize::from(inner.width), ctx.theme)
        });
        pane::scrolled(frame, inner, lines, &mut self.offset);
    }
}

fn lines(view: &Session, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let turns = view.turns();
    let Some(cur) = turns.current() else {
        let mut out = vec![Line::styled("No turn yet.", theme.dim)];
        model_line(&mut out, view, w, theme);
        queue_line(&mut out, turns.queue_len(), theme);
        return out;
    };
    let waiting = !view.actions().is_empty();
    let phase = cur.phase(waiting);
    let mut out = Vec::new();
    out.push(head_line(cur, &phase, view, theme));
    out.push(truncate(
        match &cur.asked {
            Some(asked) => Line::from(vec![
                Span::styled("asked ", theme.dim),
                Span::styled(text::line(asked).into_owned(), theme.text),
            ]),
            None => Line::styled(format!("turn {}", text::line(&cur.id)), theme.dim),
        },
        w,
    ));
    model_line(&mut out, view, w, theme);
    if let Some(todo) = &cur.todos {
        let mut spans = vec![Span::styled(
            format!("todo {}/{}", todo.done, todo.total),
            theme.accent,
        )];
        if let Some(next) = &todo.next {
            spans.push(Span::styled(" · now: ", theme.dim));
            spans.push(Span::styled(text::line(next).into_owned(), theme.text));
        }
        out.push(truncate(Line::from(spans), w));
    }
    if let Some((tool, args)) = cur
        .tool_in_flight
        .as_ref()
        .filter(|_| matches!(phase, TurnPhase::Working | TurnPhase::WaitingOnYou))
    {
        out.push(truncate(
            Line::from(vec![
                Span::styled("⋯ ", theme.accent),
                Span::styled(format!("{} ", text::line(tool)), theme.strong),
                Span::styled(text::line(args).into_owned(), theme.dim),
            ]),
            w,
        ));
    }
    queue_line(&mut out, turns.queue_len(), theme);
    if let Some(err) = &cur.error {
        for (i, l) in text::wrap(err, w.saturating_sub(7)).into_iter().enumerate() {
            let lead = if i == 0 { "error: " } else { "       " };
            out.push(Line::from(vec![
                Span::styled(lead, theme.error),
                Span::styled(l, theme.error),
            ]));
        }
    }
    if let Some(a) = &cur.artifacts {
        out.push(artifacts_line(cur, a, view, theme));
    }
    waiting_lines(&mut out, view, w, theme);
    if !turns.recent().is_empty() {
        out.push(Line::styled("recent", theme.title));
        for t in turns.recent() {
            out.push(recent_line(t, w, theme));
        }
    }
    out
}

/// The turn's first line: its phase, how long it has run, its steps.
fn head_line(cur: &TurnInfo, phase: &TurnPhase, view: &Session, theme: &Theme) -> Line<'static> {
    let mut head = vec![
        Span::styled(format!("{} ", phase_mark(phase)), phase_style(phase, theme)),
        Span::styled(
            text::line(phase.label()).into_owned(),
            phase_style(phase, theme),
        ),
    ];
    if let Some(ms) = cur.elapsed_ms(view.now_ms()) {
        head.push(Span::styled(format!("  {}", duration(ms)), theme.text));
    }
    if cur.steps > 0 {
        let s = if cur.steps == 1 { "" } else { "s" };
        head.push(Span::styled(format!(" · {} step{s}", cur.steps), theme.dim));
    }
    Line::from(head)
}

/// What became of the turn's artifacts (`a`) and how many files it left.
fn artifacts_line(
    cur: &TurnInfo,
    a: &ArtifactsState,
    view: &Session,
    theme: &Theme,
) -> Line<'static> {
    let skipped = if cur.artifacts_skipped > 0 {
        format!(" ({} skipped)", cur.artifacts_skipped)
    } else {
        String::new()
    };
    let style = match a {
        ArtifactsState::Failed => theme.error,
        ArtifactsState::Partial | ArtifactsState::Pending => theme.warning,
        _ => theme.text,
    };
    let files = view
        .artifacts()
        .iter()
        .filter(|x| x.turn_id == cur.id)
        .count();
    let files = match files {
        0 => String::new(),
        1 => " · 1 file".to_string(),
        n => format!(" · {n} files"),
    };
    // "ready" with no file is the spec's "produced nothing": say that, not "ready".
    let state = if *a == ArtifactsState::Ready && files.is_empty() {
        "none".into()
    } else {
        text::line(a.as_str())
    };
    Line::styled(format!("artifacts: {state}{files}{skipped}"), style)
}

/// One line per required action waiting on the person.
fn waiting_lines(out: &mut Vec<Line<'static>>, view: &Session, w: usize, theme: &Theme) {
    for a in view.actions().pending() {
        let kind = a.kind.as_str();
        // A question's name is often the word "question" itself: then its text says more.
        let what = if a.name.is_empty() || a.name == kind {
            a.args.as_str()
        } else {
            a.name.as_str()
        };
        let word = if a.kind == RequiredActionKind::FunctionCall {
            "function call"
        } else {
            kind
        };
        let mut spans = vec![Span::styled(
            format!("⚠ waiting on you: {}", text::line(word)),
            theme.warning,
        )];
        if !what.trim().is_empty() {
            spans.push(Span::raw(format!(" · {}", text::line(what))));
        }
        out.push(truncate(Line::from(spans), w));
    }
}

fn model_line(out: &mut Vec<Line<'static>>, view: &Session, w: usize, theme: &Theme) {
    if let Some(model) = view.model() {
        out.push(truncate(
            Line::from(vec![
                Span::styled("model ", theme.dim),
                Span::styled(text::line(model).into_owned(), theme.text),
            ]),
            w,
        ));
    }
}

fn queue_line(out: &mut Vec<Line<'static>>, queued: u32, theme: &Theme) {
    if queued > 0 {
        let s = if queued == 1 { "" } else { "s" };
        out.push(Line::styled(
            format!("queue: {queued} message{s} waiting"),
            theme.warning,
        ));
    }
}

fn recent_line(t: &TurnInfo, w: usize, theme: &Theme) -> Line<'static> {
    let phase = t.phase(false);
    // A settled turn always says how long it took, or why that is not known.
    let elapsed = match t.elapsed_ms(None) {
        Some(ms) => format!(" {}", duration(ms)),
        None if t.is_settled() && t.started_at.is_none() => " never started".into(),
        None if t.is_settled() => " (its duration is not known)".into(),
        None => String::new(),
    };
    truncate(
        Line::from(vec![
            Span::styled(
                format!("  {} ", phase_mark(&phase)),
                phase_style(&phase, theme),
            ),
            Span::styled(
                format!("{:<10}", text::line(phase.label())),
                phase_style(&phase, theme),
            ),
            Span::styled(format!("{elapsed} "), theme.text),
            match (&t.asked, t.started_at, t.created_at) {
                (Some(asked), ..) => Span::styled(text::line(asked).into_owned(), theme.text),
                // Its message came before the history this screen read: when, not an id.
                (None, Some(at), _) => Span::styled(
                    format!("started {}", gobare_api::clock::utc_date_and_clock(at).1),
                    theme.dim,
                ),
                (None, None, Some(at)) => Span::styled(
                    format!("asked {}", gobare_api::clock::utc_date_and_clock(at).1),
                    theme.dim,
                ),
                (None, None, None) => Span::styled("its message is not in view", theme.dim),
            },
        ]),
        w,
    )
}

fn phase_mark(p: &TurnPhase) -> &'static str {
    match p {
        TurnPhase::Queued => "◌",
        TurnPhase::Working => "●",
        TurnPhase::WaitingOnYou => "⚠",
        TurnPhase::Settling => "◍",
        TurnPhase::Completed => "✓",
        TurnPhase::Failed => "✗",
        TurnPhase::Cancelled => "⊘",
        TurnPhase::Other(_) => "?",
    }
}

fn phase_style(p: &TurnPhase, theme: &Theme) -> Style {
    match p {
        TurnPhase::Working | TurnPhase::Settling => theme.accent,
        TurnPhase::Queued | TurnPhase::WaitingOnYou => theme.warning,
        TurnPhase::Completed => theme.ok,
        TurnPhase::Failed => theme.error,
        TurnPhase::Cancelled | TurnPhase::Other(_) => theme.dim,
    }
}

#[cfg(test)]
mod tests;
