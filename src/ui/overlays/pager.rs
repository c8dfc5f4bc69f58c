//! The pager: a scrollable, read-only view of lines (an artifact, a file, an event's JSON)
//! shown as an overlay. Callers hand it lines already styled and sanitized, or a file's text
//! to highlight (sanitized and styled here, as far down as it is shown).

use crate::ui::overlays::{self, Overlay, OverlayKey, ViewKey, ViewScope};
use crate::ui::text::highlight::Highlighted;
use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// What the pager shows.
enum Content {
    Lines(Vec<Line<'static>>),
    Highlighted(Highlighted),
    /// Plain text wrapped between words to the width it is drawn at: nothing of it is cut
    /// at the pager's edge.
    Wrapped(Wrapped),
}

struct Wrapped {
    text: String,
    style: Style,
    /// The width `lines` were wrapped to.
    width: usize,
    lines: Vec<Line<'static>>,
}

impl Wrapped {
    /// Wraps the text again when `width` is not the one it was wrapped to.
    fn fit(&mut self, width: usize) {
        if width == self.width && !self.lines.is_empty() {
            return;
        }
        self.width = width;
        self.lines = self
            .text
            .split('\n')
            .flat_map(|line| {
                let rows = text::wrap(line, width);
                if rows.is_empty() {
                    vec![String::new()]
                } else {
                    rows
                }
            })
            .map(|row| Line::from(Span::styled(row, self.style)))
            .collect();
    }
}

impl Content {
    fn len(&self) -> usize {
        match self {
            Content::Lines(lines) => lines.len(),
            Content::Highlighted(h) => h.len(),
            Content::Wrapped(w) => w.lines.len(),
        }
    }

    fn lines(&mut self, range: std::ops::Range<usize>) -> Vec<Line<'static>> {
        match self {
            Content::Lines(lines) => lines[range].to_vec(),
            Content::Highlighted(h) => h.lines(range).to_vec(),
            Content::Wrapped(w) => w.lines[range].to_vec(),
        }
    }
}

pub(crate) struct Pager {
    title: String,
    lines: Content,
    /// Lines scrolled past at the top.
    top: usize,
    /// Text rows at the last draw (page size).
    rows: usize,
}

impl Pager {
    /// A pager over `lines`, titled `title` (sanitized here).
    pub(crate) fn new(title: &str, lines: Vec<Line<'static>>) -> Self {
        Self {
            title: text::line(title).into_owned(),
            lines: Content::Lines(lines),
            top: 0,
            rows: 20,
        }
    }

    /// A pager over the text of a file named `name`, highlighted by its kind.
    pub(crate) fn highlighted(title: &str, name: &str, content: &str, theme: &Theme) -> Self {
        Self {
            title: text::line(title).into_owned(),
            lines: Content::Highlighted(Highlighted::new(name, content, theme)),
            top: 0,
            rows: 20,
        }
    }

    /// A pager over plain `content`, sanitized line by line.
    pub(crate) fn plain(title: &str, content: &str, theme: &Theme) -> Self {
        let lines = content
            .lines()
            .map(|l| Line::from(Span::styled(text::line(l).into_owned(), theme.text)))
            .collect();
        Self::new(title, lines)
    }

    /// A pager over plain `content` wrapped to its width, so a long line (a whole command)
    /// is read to its end; sanitized as it is wrapped.
    pub(crate) fn wrapped(title: &str, content: &str, theme: &Theme) -> Self {
        Self {
            title: text::line(title).into_owned(),
            lines: Content::Wrapped(Wrapped {
                text: content.to_string(),
                style: theme.text,
                width: 0,
                lines: Vec::new(),
            }),
            top: 0,
            rows: 20,
        }
    }

    /// The first line shown.
    #[cfg_attr(not(test), expect(dead_code))]
    pub(crate) fn top(&self) -> usize {
        self.top
    }

    fn max_top(&self) -> usize {
        self.lines.len().saturating_sub(self.rows.max(1))
    }

    fn scroll(&mut self, by: isize) {
        self.top = self.top.saturating_add_signed(by).min(self.max_top());
    }
}

impl Overlay for Pager {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let area = overlays::area(area);
        if let Content::Wrapped(w) = &mut self.lines {
            w.fit(usize::from(area.width.saturating_sub(2)).max(1));
        }
        self.rows = usize::from(area.height.saturating_sub(2));
        self.top = self.top.min(self.max_top());
        let shown = (self.top + self.rows).min(self.lines.len());
        let where_ = if self.lines.len() > self.rows {
            format!(" {}–{} of {} ", self.top + 1, shown, self.lines.len())
        } else {
            String::new()
        };
        let kind = match &self.lines {
            Content::Highlighted(h) => h.grammar().map(|g| format!(" {g} ·")),
            Content::Lines(_) | Content::Wrapped(_) => None,
        };
        let kind = kind.unwrap_or_default();
        // Between the corners, after the place and kind, with a space either side: the
        // hints fit there, a cut said with `…` (never cut at the corner).
        let room = usize::from(area.width.saturating_sub(2))
            .saturating_sub(text::width(&where_) + text::width(&kind) + 2);
        let hints = crate::keys::table::view_hints_within(ViewScope::Pager, room);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .title(Span::styled(
                text::truncate(
                    &format!(" {} ", self.title),
                    usize::from(area.width.saturating_sub(2)),
                )
                .into_owned(),
                theme.title,
            ))
            .title_bottom(Span::styled(format!("{where_}{kind} {hints} "), theme.dim));
        Clear.render(area, buf);
        Paragraph::new(self.lines.lines(self.top..shown))
            .block(block)
            .render(area, buf);
    }

    fn scope(&self) -> ViewScope {
        ViewScope::Pager
    }

    fn handle(&mut self, key: ViewKey) -> OverlayKey {
        let page = isize::try_from(self.rows.max(2) - 1).unwrap_or(1);
        match key {
            ViewKey::Close => return OverlayKey::Close,
            ViewKey::Up => self.scroll(-1),
            ViewKey::Down => self.scroll(1),
            ViewKey::PageUp => self.scroll(-page),
            ViewKey::PageDown => self.scroll(page),
            ViewKey::Top => self.top = 0,
            ViewKey::Bottom => self.top = self.max_top(),
            _ => return OverlayKey::Ignored,
        }
        OverlayKey::Handled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::overlays::press;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn drawn(pager: &mut Pager, w: u16, h: u16) -> String {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
        pager.render(buf.area, &mut buf, &Theme::default());
        crate::ui::text::buffer_text::rows(&buf)
    }

    #[test]
    fn scrolls_within_its_lines_and_closes_on_esc() {
        let content: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let mut pager = Pager::plain("notes.txt", &content, &Theme::default());
        let screen = drawn(&mut pager, 60, 24);
        assert!(
            screen.contains("line 1 ") && screen.contains("1–20 of 100"),
            "{screen}"
        );
        assert_eq!(
            press(&mut pager, key(KeyCode::PageDown)),
            OverlayKey::Handled
        );
        assert_eq!(pager.top(), 19);
        press(&mut pager, key(KeyCode::End));
        assert_eq!(
            pager.top(),
            80,
            "the last line reaches the bottom, no further"
        );
        press(&mut pager, key(KeyCode::Down));
        assert_eq!(pager.top(), 80);
        assert!(drawn(&mut pager, 60, 24).contains("line 100"));
        press(&mut pager, key(KeyCode::Home));
        assert_eq!(pager.top(), 0);
        assert_eq!(
            press(&mut pager, key(KeyCode::Char('x'))),
            OverlayKey::Ignored
        );
        assert_eq!(press(&mut pager, key(KeyCode::Esc)), OverlayKey::Close);
    }

    #[test]
    fn a_narrow_pager_keeps_its_way_out_and_marks_the_hints_it_cut() {
        let all = crate::keys::table::view_hints(ViewScope::Pager);
        for w in [20, 30, 40, 60] {
            let mut pager = Pager::plain("event 7", "{}", &Theme::default());
            let screen = drawn(&mut pager, w, 10);
            let bottom = screen.lines().find(|l| l.contains('└')).unwrap();
            assert!(bottom.contains("Esc close"), "{w}: {bottom}");
            assert!(
                bottom.contains(&all) || bottom.contains(" … "),
                "{w}: a cut without a mark: {bottom}"
            );
        }
    }

    #[test]
    fn a_wrapped_pager_shows_a_long_line_to_its_end() {
        let long = (1..=12)
            .map(|n| format!("word{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        let mut pager = Pager::wrapped("request", &long, &Theme::default());
        let screen = drawn(&mut pager, 30, 12);
        let flat = screen
            .lines()
            .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
            .filter(|l| l.starts_with("word"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(flat, long, "{screen}");
    }

    #[test]
    fn hostile_text_is_sanitized() {
        let mut pager = Pager::plain("a\x1b]0;x\x07b", "evil \x1b[2J text", &Theme::default());
        let screen = drawn(&mut pager, 60, 10);
        assert!(!screen.contains('\x1b'), "{screen:?}");
        assert!(
            screen.contains("evil") && screen.contains("text"),
            "{screen}"
        );
    }
}
