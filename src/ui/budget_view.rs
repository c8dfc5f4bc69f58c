//! Budgets on screen: on the fleet's top border (slots and the request budget), and in the
//! Workspace pane (the time left before the workspace is reclaimed, the same figures).

use super::theme::Theme;
use crate::budget::Budgets;
use crate::budget::reclaim::{self, Reclaim};
use crate::session::Session;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The first of `lines` (widest first) that fits over the right of `area`'s top border
/// (the fleet's box), leaving the title drawn at its left alone: nothing is drawn when
/// none fits beside it.
pub(crate) fn on_border(area: Rect, buf: &mut Buffer, lines: &[String], theme: &Theme) {
    if area.height == 0 || area.width < 2 {
        return;
    }
    // Where the title ends: the border's first plain stretch after the corner.
    let title_end = (area.x + 1..area.right() - 1)
        .find(|&x| buf[(x, area.y)].symbol() == "─" && buf[(x + 1, area.y)].symbol() == "─")
        .unwrap_or(area.right());
    for line in lines {
        let text = format!(" {} ", text::line(line));
        let cols = text::width(&text) as u16;
        // Room: the title, a gap of two, the text, then the corner.
        if title_end + 2 + cols < area.right() {
            let x = area.right() - 1 - cols;
            buf.set_span(x, area.y, &Span::styled(text, theme.dim), cols);
            return;
        }
    }
}

/// The Workspace pane's budget lines: time to reclamation, then slots and the API.
pub(crate) fn workspace_lines(
    view: &Session,
    budgets: &Budgets,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    // The frame's clock: a view never reads the wall clock itself (no clock, no countdown).
    let now_ms = view.now_ms();
    let ws = view.workspace();
    let published = ws.preview().published_url.is_some();
    let mut clock = *ws.clock();
    clock.set_published(clock.is_published() || published);
    let reclaim = match now_ms {
        Some(now_ms) => reclaim::estimate(
            &clock,
            ws.state(),
            crate::deadline::workspace_lifetime_ms(),
            now_ms,
        ),
        None if published => Reclaim::Never,
        None => Reclaim::Unknown,
    };
    let mut out = Vec::new();
    let said = match reclaim {
        Reclaim::Never => Some(("published: never reclaimed".to_string(), theme.ok)),
        Reclaim::Reclaimed | Reclaim::Unknown => None,
        Reclaim::In { left_ms: 0, .. } => Some(("due to be reclaimed".to_string(), theme.warning)),
        Reclaim::In {
            left_ms,
            exact,
            running,
        } => {
            let left = crate::away::lines::span(left_ms);
            let bound = if exact { "" } else { "at most " };
            let when = if running {
                format!("reclaimed in {bound}{left} of running time")
            } else {
                format!("reclaimed after {bound}{left} more running (paused now)")
            };
            let style = if left_ms < 15 * 60_000 {
                theme.warning
            } else {
                theme.dim
            };
            Some((when, style))
        }
    };
    if let Some((said, style)) = said {
        for l in text::wrap(&said, width) {
            out.push(Line::styled(l, style));
        }
    }
    if let Some(line) = budgets.line(now_ms.unwrap_or_else(gobare_api::clock::unix_ms)) {
        for l in text::wrap(&line, width) {
            out.push(Line::styled(l, theme.dim));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Update;
    use crate::ui::tests::{ev, view};
    use gobare_api::rate_budget::Bucket;
    use serde_json::json;

    const MIN: i64 = 60_000;

    fn said(v: &Session, budgets: &Budgets) -> Vec<String> {
        workspace_lines(v, budgets, 80, &Theme::no_color())
            .into_iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn the_pane_says_the_running_time_left_and_the_budgets() {
        let mut v = view();
        let mut at = |kind: &str, state: &str, seq: u64, ms: i64| {
            let mut e = ev(kind, Some(seq), json!({ "state": state }));
            e.created_at = Some(ms);
            v.apply(Update::Event(e));
        };
        at("sandbox.created", "running", 1, 0);
        at("sandbox.paused", "paused", 2, 30 * MIN);
        at("sandbox.resumed", "running", 3, 90 * MIN);
        let budgets = Budgets {
            rate: Some(Bucket {
                limit: 120,
                remaining: 87,
                reset_secs: 17,
                at_ms: 100 * MIN,
            }),
            ..Budgets::default()
        };
        assert!(
            !said(&v, &budgets).iter().any(|l| l.contains("reclaimed")),
            "no clock yet: no countdown"
        );
        v.apply(Update::Tick(100 * MIN));
        // Seen from `sandbox.created`: exact, not "at most".
        assert_eq!(
            said(&v, &budgets),
            ["reclaimed in 1h 20m of running time", "API 87/120",]
        );
    }
}
