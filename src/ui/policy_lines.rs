//! The session's approval mode, permission rules and labels as the Workspace pane shows
//! them, with the keys that change them (`M` the mode, `a` / `d` on an approval add a rule,
//! `R` lists the rules to remove or edit one, `l` the labels, `C` switches the model, which
//! the Turn pane names).

use super::text::styled::truncate;
use super::theme::Theme;
use crate::session::Session;
use crate::sessions::policy::{self, Policy};
use gobare_api::text;
use ratatui::text::{Line, Span};

/// The lines, or none before the session was read.
pub(crate) fn lines(view: &Session, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(session) = view.session_object() else {
        return Vec::new();
    };
    let policy = Policy::of(session);
    let mut out = vec![truncate(
        Line::from(vec![
            Span::styled("approval mode ", theme.dim),
            Span::styled(policy.mode_words(), theme.strong),
            Span::styled("  (M: next, from the next turn)", theme.dim),
        ]),
        w,
    )];
    let labels = crate::sessions::labels::words(session);
    match &policy.rules {
        None => out.push(Line::styled(
            "rules: one or more this client cannot read (not changed from here)",
            theme.warning,
        )),
        Some(rules) if rules.is_empty() => out.push(truncate(
            Line::styled("rules: none (a / d on an approval add one)", theme.dim),
            w,
        )),
        Some(rules) => {
            out.push(Line::styled(
                format!(
                    "rules ({}) · R: remove or edit any · X removes the newest",
                    rules.len()
                ),
                theme.dim,
            ));
            for (i, rule) in rules.iter().enumerate() {
                let line = format!("{}. {}", i + 1, policy::rule_line(rule));
                for (n, l) in text::wrap(&line, w.saturating_sub(2).max(1))
                    .into_iter()
                    .enumerate()
                {
                    let indent = if n == 0 { "  " } else { "     " };
                    out.push(Line::raw(format!("{indent}{l}")));
                }
            }
        }
    }
    // After the rules: the Turn pane names the model, this line only its key.
    out.push(truncate(
        Line::from(vec![
            Span::styled("labels ", theme.dim),
            Span::styled(labels.unwrap_or_else(|| "none".into()), theme.text),
            Span::styled("  (l: edit · C: switch the model)", theme.dim),
        ]),
        w,
    ));
    out
}
