//! The status bar: connection, cursor, skipped frames, session, host, demo marker, hints
//! (or the latest notice). A reconnect changes only the indicator.

use super::text::styled::truncate;
use super::theme::Theme;
use crate::session::{Session, Severity};
use gobare_api::stream::ConnectionState;
use gobare_api::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// `hint` says where keys go (the app draws it from its key table); in the panes it names
/// the pane that has them, so the mode never shows by a border's colour alone.
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    view: &Session,
    theme: &Theme,
    hint: (&str, bool),
) {
    let sep = || Span::styled(" │ ", theme.dim);
    let mut spans = vec![connection(view, theme)];
    if let Some(secs) = view.budget_wait_secs() {
        spans.extend([
            sep(),
            Span::styled(
                format!("waiting {secs} s for the request budget"),
                theme.warning,
            ),
        ]);
    }
    if let Some(seq) = view.last_seq() {
        spans.extend([sep(), Span::styled(format!("seq {seq}"), theme.dim)]);
    }
    if view.read_only() {
        spans.extend([sep(), Span::styled("read-only token", theme.warning)]);
    }
    if view.skipped() > 0 {
        spans.extend([
            sep(),
            Span::styled(format!("{} skipped", view.skipped()), theme.warning),
        ]);
    }
    let name = view.name();
    let mut origin = Vec::new();
    if !name.is_empty() {
        origin.extend([
            sep(),
            Span::styled(text::line(name).into_owned(), theme.title),
        ]);
    }
    if !view.api_host().is_empty() {
        origin.extend([
            sep(),
            Span::styled(text::line(view.api_host()).into_owned(), theme.dim),
        ]);
    }
    if view.local_demo() {
        origin.extend([sep(), Span::styled("local demo", theme.warning)]);
    }
    let (hint_text, panes) = hint;
    // Which pane has the keys comes before the session and host (after a notice): the
    // mode must never show by colour alone.
    let pane_hint = panes.then(|| [sep(), Span::styled(hint_text.to_string(), theme.accent)]);
    match view.notice() {
        // A notice comes before the session and host, so a narrow bar cuts those first.
        Some(n) => {
            let style = match n.severity {
                Severity::Quiet => theme.dim,
                Severity::Info => theme.accent,
                Severity::Warn => theme.warning,
                Severity::Error => theme.error,
            };
            spans.extend([sep(), Span::styled(text::line(&n.text).into_owned(), style)]);
            spans.extend(pane_hint.into_iter().flatten());
            spans.extend(origin);
        }
        None => {
            spans.extend(pane_hint.into_iter().flatten());
            spans.extend(origin);
            if !panes && !hint_text.is_empty() {
                spans.extend([sep(), Span::styled(hint_text.to_string(), theme.dim)]);
            }
        }
    }
    frame.render_widget(
        Paragraph::new(truncate(Line::from(spans), area.width as usize)),
        area,
    );
}

/// How long an open stream may say nothing before the status bar calls it silent: past
/// the reference's 15 s ping interval, with room for a slow link.
const QUIET_OPEN_MS: i64 = 20_000;

/// Whether the status bar warns of an open stream's silence. A quiet session's server says
/// nothing until its first ping (15 s, §7.2): only silence past that is worth a warning.
/// While it warns, nothing is said to be loading: nothing is.
pub(crate) fn silence_is_news(view: &Session) -> bool {
    match view.connection() {
        Some(ConnectionState::Open { silent_before }) => {
            *silent_before > 0 || view.stream_silent_for_ms().unwrap_or(0) >= QUIET_OPEN_MS
        }
        _ => false,
    }
}

fn connection(view: &Session, theme: &Theme) -> Span<'static> {
    match view.connection() {
        None | Some(ConnectionState::Connecting { attempt: 0 | 1 }) => {
            Span::styled("○ connecting", theme.dim)
        }
        Some(ConnectionState::Connecting { attempt }) => {
            Span::styled(format!("○ connecting (attempt {attempt})"), theme.warning)
        }
        Some(ConnectionState::Live) => Span::styled("● live", theme.ok),
        Some(ConnectionState::Open { .. }) => {
            let silent_ms = view.stream_silent_for_ms().unwrap_or(0);
            if !silence_is_news(view) {
                return Span::styled("◌ connected", theme.dim);
            }
            let reading = if view.reading_resources() {
                " · reading the session every 15 s"
            } else {
                ""
            };
            Span::styled(
                format!(
                    "◌ connected, nothing received for {}{reading}",
                    crate::readable::times::duration(silent_ms)
                ),
                theme.warning,
            )
        }
        // Between silent connections the reads that stand in for the stream go on: say so
        // here too, or the transcript seems to fill from nowhere.
        Some(ConnectionState::Retrying { in_ms, .. }) => Span::styled(
            format!(
                "◌ reconnecting in {} s · Ctrl+R now{}",
                in_ms.div_ceil(1000),
                if view.reading_resources() {
                    " · reading the session every 15 s"
                } else {
                    ""
                }
            ),
            theme.warning,
        ),
        Some(ConnectionState::Failed { reason }) => Span::styled(
            format!("✗ failed: {} · Ctrl+R retries", text::line(reason)),
            theme.error,
        ),
    }
}
