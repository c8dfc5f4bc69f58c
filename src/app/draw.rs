//! One frame: the panes and status bar (`ui::draw`), then what the app owns on top — the
//! required-action prompt and the input box in the region `ui::draw` left blank, the
//! replay progress or the filter line on the status bar, and the help overlay.

use super::App;
use crate::ui::mode::Mode;
use crate::ui::{self, confirm, help};
use color_eyre::Result;
use gobare_api::model::RequiredActionKind;
use gobare_api::text;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

/// Rows always left to the panes, however tall the input box wants to be.
const MIN_PANE_ROWS: u16 = 6;

impl App {
    pub(super) fn draw(&mut self) -> Result<()> {
        let App {
            tui,
            view,
            ui: state,
            composer,
            prompt,
            theme,
            replay,
            mode,
            help_scroll,
            ..
        } = self;
        let confirming = match &*mode {
            Mode::Confirming(c) => Some(c.question()),
            _ => None,
        };
        let mut drawn_areas = None;
        tui.draw(|f| {
            let area = f.area();
            let composer_rows = composer.desired_height(area.width);
            let prompt_rows = if prompt.is_empty() {
                0
            } else {
                prompt.desired_height(area.width)
            };
            let confirm_rows = confirming
                .as_deref()
                .map_or(0, |q| confirm::desired_height(q, area.width));
            let room = area.height.saturating_sub(MIN_PANE_ROWS + 1).max(3);
            // A confirmation takes the input area (and never less than it asks for).
            state.composer_height =
                (composer_rows.max(confirm_rows) + prompt_rows).min(room.max(confirm_rows));
            state.input_focused = *mode != Mode::Navigating;
            ui::draw(f, view, state, theme);
            let areas = ui::areas(area, state, state.composer_height);
            // The input box keeps its rows; the prompt gets what is left above it.
            let prompt_rows = areas
                .composer
                .height
                .saturating_sub(composer_rows)
                .min(prompt_rows);
            let [prompt_area, composer_area] =
                Layout::vertical([Constraint::Length(prompt_rows), Constraint::Min(0)])
                    .areas(areas.composer);
            prompt.set_focused(*mode == Mode::Deciding);
            if prompt_rows > 0 {
                prompt.render(prompt_area, f.buffer_mut(), theme);
            }
            composer.set_turn_running(view.turn_running());
            let enter_answers = prompt.current().is_some_and(|a| {
                matches!(
                    a.kind,
                    RequiredActionKind::Question | RequiredActionKind::FunctionCall
                )
            });
            composer.set_title(mode.title(!prompt.is_empty(), view.turn_running(), enter_answers));
            if let Some(question) = confirming.as_deref() {
                let rows = composer_area
                    .height
                    .max(confirm_rows)
                    .min(areas.composer.height);
                let confirm_area = Rect {
                    y: areas.composer.bottom().saturating_sub(rows),
                    height: rows,
                    ..areas.composer
                };
                confirm::render(question, confirm_area, f.buffer_mut(), theme);
            } else {
                composer.render(composer_area, f.buffer_mut(), theme, mode.is_typing());
            }

            let footer = areas.footer;
            if let Mode::Filter(filter) = &*mode {
                let line = Line::from(vec![
                    Span::styled("filter events by type: ", theme.title),
                    Span::styled(format!("{}▏", text::line(filter)), theme.text),
                    Span::styled("  Enter/Esc done · empty shows all", theme.dim),
                ]);
                Clear.render(footer, f.buffer_mut());
                Paragraph::new(line).render(footer, f.buffer_mut());
            } else if let Some(label) = replay.label() {
                right_aligned(footer, &label, theme.warning, f.buffer_mut());
            }
            if *mode == Mode::Help {
                help::render(help::area(area), f.buffer_mut(), theme, *help_scroll);
            }
            drawn_areas = Some(areas);
        })?;
        self.last_areas = drawn_areas;
        Ok(())
    }
}

/// ` text ` at the right end of `area`, over whatever is there.
fn right_aligned(
    area: Rect,
    text: &str,
    style: ratatui::style::Style,
    buf: &mut ratatui::buffer::Buffer,
) {
    let label = format!(" {text} ");
    let width = u16::try_from(text::width(&label))
        .unwrap_or(u16::MAX)
        .min(area.width);
    let rect = Rect {
        x: area.right().saturating_sub(width),
        width,
        ..area
    };
    Clear.render(rect, buf);
    Paragraph::new(Span::styled(label, style)).render(rect, buf);
}
