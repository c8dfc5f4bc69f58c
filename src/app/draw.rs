//! One frame: the panes and status bar (`ui::draw`), then what the app owns on top — the
//! required-action prompt and the input box in the region `ui::draw` left blank, the
//! replay progress or the filter line on the status bar, and the help overlay.

use super::App;
use crate::ui::{self, help};
use color_eyre::Result;
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
            help_open,
            filter_edit,
            replay,
            input_focused,
            ..
        } = self;
        let mut drawn_areas = None;
        tui.draw(|f| {
            let area = f.area();
            let composer_rows = composer.desired_height(area.width);
            let prompt_rows = if prompt.is_empty() {
                0
            } else {
                prompt.desired_height(area.width)
            };
            let room = area.height.saturating_sub(MIN_PANE_ROWS + 1).max(3);
            state.composer_height = (composer_rows + prompt_rows).min(room);
            state.input_focused = *input_focused && !*help_open && filter_edit.is_none();
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
            if prompt_rows > 0 {
                prompt.render(prompt_area, f.buffer_mut(), theme);
            }
            composer.set_turn_running(view.turn_running());
            let typing = state.input_focused;
            composer.render(composer_area, f.buffer_mut(), theme, typing);

            let footer = areas.footer;
            if let Some(filter) = filter_edit.as_deref() {
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
            if *help_open {
                help::render(help::area(area), f.buffer_mut(), theme);
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
