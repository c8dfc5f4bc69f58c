//! The fleet's frame: the border and its counts, the header, the rows on screen (laid out
//! from the selection and the page, then painted, an unchanged row copied from the last
//! frame), the mode's line and the key hints; and how long all that stays true.

use super::drawn_rows::RowKey;
use super::rows::{at_tick, header, label, row, turn_seconds};
use super::usage_cell::{self, UsageCell};
use super::{FleetMode, FleetScope, FleetView, clear, visible_offset};
use crate::fleet::model::{FleetModel, FleetRow};
use crate::fleet::order::Shown;
use crate::readable::times::{age_parts, age_redraw_in};
use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Widget};
use std::ops::Range;

impl FleetView {
    /// Draws the fleet over `area`; clocks and ages are measured against `now_ms`.
    pub fn render(
        &mut self,
        area: Rect,
        buf: &mut Buffer,
        model: &FleetModel,
        theme: &Theme,
        now_ms: i64,
    ) {
        clear(area, buf);
        let mut true_for = TrueFor(self.refresh_order(model, now_ms));
        self.remember();
        let trouble = model.trouble().map(|t| {
            if t.counts_down() {
                true_for.at_most(1000 - now_ms.rem_euclid(1000));
            }
            t.line(now_ms)
        });
        let inner = framed(area, buf, model, theme);
        if inner.height < 3 || inner.width == 0 {
            return;
        }
        // Header, the list, then the mode's line and the key hints.
        self.page_rows = (usize::from(inner.height) - 3).max(1);
        if self.drawn_theme.as_ref() != Some(theme) {
            self.drawn.clear();
            self.drawn_theme = Some(theme.clone());
        }
        let width = usize::from(inner.width);
        buf.set_line(
            inner.x,
            inner.y,
            &header(width, self.sort, theme),
            inner.width,
        );
        if self.shown.is_empty() {
            let (empty, style) = self.empty_line(model, trouble.as_deref(), theme);
            buf.set_span(
                inner.x,
                inner.y + 1,
                &Span::styled(text::truncate(&empty, width).into_owned(), style),
                inner.width,
            );
        }
        self.paint_rows(inner, buf, model, theme, now_ms, &mut true_for);
        self.true_for_ms = true_for.0;
        self.name_the_asked(model);
        self.paint_foot(inner, buf, model, trouble, theme);
    }

    /// What the list says when it shows no row: why not.
    fn empty_line(
        &self,
        model: &FleetModel,
        trouble: Option<&str>,
        theme: &Theme,
    ) -> (String, Style) {
        match trouble {
            Some(trouble) if !model.is_loaded() => {
                (format!("  {}", text::line(trouble)), theme.error)
            }
            _ if !model.is_loaded() => ("  loading sessions…".to_string(), theme.dim),
            _ if !self.filter.is_empty() => {
                ("  no session matches the filter".to_string(), theme.dim)
            }
            _ => (
                "  No sessions yet — press n to start one".to_string(),
                theme.dim,
            ),
        }
    }

    /// The rows on screen: `offset..end` of `shown`, scrolled so the selection (the
    /// index given) is among them.
    fn visible_rows(&mut self) -> (usize, Range<usize>) {
        let index = self.current_index().min(self.shown.len().saturating_sub(1));
        self.offset = visible_offset(self.offset, index, self.page_rows);
        let end = (self.offset + self.page_rows).min(self.shown.len());
        (index, self.offset..end)
    }

    /// Draws the list's rows under the header, noting the selected row's facts and when
    /// what the rows show stops being true.
    fn paint_rows(
        &mut self,
        inner: Rect,
        buf: &mut Buffer,
        model: &FleetModel,
        theme: &Theme,
        now_ms: i64,
        true_for: &mut TrueFor,
    ) {
        let (index, rows) = self.visible_rows();
        let width = usize::from(inner.width);
        // Clocks and ages move on the wall clock's whole seconds, all rows together:
        // one frame a second for all of them, not one per row at its own phase.
        let tick_ms = now_ms - now_ms.rem_euclid(1000);
        let mut y = inner.y + 1;
        for i in rows.clone() {
            // The order was computed from this very version of the model.
            let Some(found) = model.get(&self.shown[i]) else {
                continue;
            };
            let shown = Shown {
                row: found,
                depth: self.depths[i],
            };
            let selected = i == index;
            let clock = turn_seconds(found, tick_ms);
            let usage = usage_cell::usage_cell(found, tick_ms);
            true_for.row(found, clock.is_some(), &usage, now_ms);
            if selected {
                self.note_selected(found, &usage);
            }
            let key = RowKey {
                model: model.version().0,
                version: found.version,
                depth: shown.depth,
                selected,
                width: inner.width,
                clock,
                age: age_parts(tick_ms - found.last_activity),
                usage: (usage.shown, usage.stale_ms.is_some()),
            };
            // Rows are cut to the width already: no paragraph's wrapping and alignment work,
            // and an unchanged row's cells are copied from the last frame.
            self.drawn.draw(buf, inner.x, y, &found.id, key, || {
                row(&shown, &usage, selected, width, theme, tick_ms)
            });
            y += 1;
        }
        self.drawn.end_frame();
        self.drawn_end = rows.end;
    }

    /// Keeps what the keys start from: the selected row's label, title, labels and how
    /// old its usage read is.
    fn note_selected(&mut self, found: &FleetRow, usage: &UsageCell) {
        self.selected_label = label(found).0.to_string();
        if self.selected_title != found.title.as_deref().unwrap_or_default() {
            self.selected_title = found.title.clone().unwrap_or_default();
        }
        self.selected_labels = crate::sessions::labels::edit_text(&found.labels);
        self.selected_usage_age = usage.stale_ms;
    }

    /// A question about a session names it as it is now (it may have been renamed since).
    fn name_the_asked(&mut self, model: &FleetModel) {
        if let FleetMode::ConfirmDelete { id, label: asked }
        | FleetMode::ConfirmFork { id, label: asked } = &mut self.mode
            && let Some(found) = model.get(id)
        {
            *asked = label(found).0.to_string();
        }
    }

    /// The mode's line (or the trouble or note over an idle list's) and the key hints, on
    /// the last two lines of `inner`.
    fn paint_foot(
        &self,
        inner: Rect,
        buf: &mut Buffer,
        model: &FleetModel,
        trouble: Option<String>,
        theme: &Theme,
    ) {
        let width = usize::from(inner.width);
        let bottom = inner.bottom();
        buf.set_line(
            inner.x,
            bottom - 2,
            &self.mode_line(width, theme),
            inner.width,
        );
        buf.set_span(
            inner.x,
            bottom - 1,
            &Span::styled(
                text::truncate(
                    &format!("  {}", crate::keys::table::fleet_hints(FleetScope::List)),
                    width,
                )
                .into_owned(),
                theme.dim,
            ),
            inner.width,
        );
        // Trouble first: it says why the rows may be wrong.
        let note = trouble
            .filter(|_| model.is_loaded())
            .or_else(|| model.note().map(|n| text::line(n).into_owned()));
        if let Some(note) = note
            && self.mode == FleetMode::List
            && self.message.is_none()
        {
            let note = format!("  {note}");
            buf.set_stringn(
                inner.x,
                bottom - 2,
                text::truncate(&note, width),
                width,
                theme.warning,
            );
        }
    }
}

/// The fleet's border, titled with its counts, drawn over `area`; gives the inside.
fn framed(area: Rect, buf: &mut Buffer, model: &FleetModel, theme: &Theme) -> Rect {
    let waiting = model.needing_you();
    // Counts only from a listing: nothing known is not "0 need you".
    let title = if model.is_loaded() {
        format!(
            " Fleet · {} session{} · {waiting} need{} you ",
            model.len(),
            if model.len() == 1 { "" } else { "s" },
            if waiting == 1 { "s" } else { "" },
        )
    } else {
        " Fleet · not listed yet ".to_string()
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(
            text::truncate(&title, usize::from(area.width.saturating_sub(2))).into_owned(),
            theme.title,
        ));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// How long what a frame shows stays true: the soonest moment something drawn changes by
/// itself, in ms from now (`None`: until something else changes).
#[derive(Debug, Clone, Copy)]
struct TrueFor(Option<i64>);

impl TrueFor {
    fn at_most(&mut self, ms: i64) {
        self.0 = Some(self.0.map_or(ms, |t| t.min(ms)));
    }

    /// A row's running clock, its age and its usage figure, all moving on the wall
    /// clock's whole seconds.
    fn row(&mut self, found: &FleetRow, clock_runs: bool, usage: &UsageCell, now_ms: i64) {
        let tick_ms = now_ms - now_ms.rem_euclid(1000);
        if clock_runs {
            self.at_most(1000 - now_ms.rem_euclid(1000));
        }
        self.at_most(at_tick(
            tick_ms,
            age_redraw_in(tick_ms - found.last_activity),
            now_ms,
        ));
        if let Some(ms) = usage.redraw_in {
            self.at_most(at_tick(tick_ms, ms, now_ms));
        }
    }
}
