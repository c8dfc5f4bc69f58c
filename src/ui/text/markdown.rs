//! Agent markdown → styled lines wrapped to a width.
//!
//! Every piece of text is sanitized before it becomes a span, so markdown can never smuggle a
//! control sequence into the terminal. Code is set apart with a `│` gutter (and a `╭ lang`
//! label) and wrapped with a `↪` marker instead of being reflowed as prose; quotes get `┃`.

mod table;
mod wrap;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::ui::theme::Theme;
use gobare_api::text;
use wrap::Inline;

/// Renders markdown `text` (server text: sanitized inside) into lines at most `width`
/// columns wide: headings, lists, emphasis, inline code, fenced code blocks set apart.
pub(crate) fn render(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    if width == 0 {
        return Vec::new();
    }
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut renderer = Renderer::new(usize::from(width), theme);
    for event in Parser::new_ext(text, options) {
        renderer.event(event);
    }
    renderer.flush_inline();
    renderer.lines
}

/// Sanitized inline text: tabs become spaces (markdown text never holds newlines).
fn clean(s: &str) -> String {
    let spaced;
    let s = if s.contains('\t') {
        spaced = s.replace('\t', " ");
        spaced.as_str()
    } else {
        s
    };
    text::line(s).into_owned()
}

/// The bar in front of quoted lines (heavier than the code gutter `│`, so the two differ).
const QUOTE_BAR: &str = "┃ ";

/// A block that indents what it contains.
enum Frame {
    Quote,
    /// A list item: its marker is shown on its first line, blanks of equal width after.
    Item {
        marker: String,
        shown: bool,
    },
}

enum ListKind {
    Bullet,
    Ordered(u64),
}

struct Renderer<'t> {
    width: usize,
    theme: &'t Theme,
    lines: Vec<Line<'static>>,
    frames: Vec<Frame>,
    lists: Vec<ListKind>,
    /// Styles of the open inline tags (emphasis, strong, link, heading…), innermost last.
    styles: Vec<Style>,
    inline: Vec<Inline>,
    /// URLs of open links, shown after the link text.
    links: Vec<(String, usize)>,
    code: Option<String>,
    html: Option<String>,
    table: Option<table::Table>,
    cell: Option<String>,
    blank_pending: bool,
}

impl<'t> Renderer<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Renderer {
            width,
            theme,
            lines: Vec::new(),
            frames: Vec::new(),
            lists: Vec::new(),
            styles: Vec::new(),
            inline: Vec::new(),
            links: Vec::new(),
            code: None,
            html: None,
            table: None,
            cell: None,
            blank_pending: false,
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(self.theme.text, |acc, s| acc.patch(*s))
    }

    fn base_style(&self) -> Style {
        if self.frames.iter().any(|f| matches!(f, Frame::Quote)) {
            self.theme.text.patch(self.theme.quote)
        } else {
            self.theme.text
        }
    }

    /// The indentation for the next line; `consume` marks list markers as shown.
    fn prefix(&mut self, consume: bool) -> (Vec<Span<'static>>, usize) {
        let mut spans = Vec::new();
        let mut w = 0;
        for frame in &mut self.frames {
            let (text, style) = match frame {
                Frame::Quote => (QUOTE_BAR.to_string(), self.theme.quote),
                Frame::Item { marker, shown } => {
                    let text = if *shown {
                        " ".repeat(text::width(marker))
                    } else {
                        marker.clone()
                    };
                    if consume {
                        *shown = true;
                    }
                    (text, self.theme.list_marker)
                }
            };
            w += text::width(&text);
            spans.push(Span::styled(text, style));
        }
        // Deep nesting in a narrow pane: keep at least half the width for the text.
        let limit = self.width / 2;
        if w > limit {
            let joined: String = spans.iter().map(|s| s.content.as_ref()).collect();
            let cut = text::split_at_width(&joined, limit)[0].to_string();
            let cut = if text::width(&cut) > limit {
                String::new()
            } else {
                cut
            };
            w = text::width(&cut);
            spans = vec![Span::styled(cut, self.theme.dim)];
        }
        (spans, w)
    }

    /// Cells left for content after the current prefix.
    fn avail(&mut self) -> usize {
        let (_, w) = self.prefix(false);
        self.width.saturating_sub(w).max(1)
    }

    fn push_blank_if_pending(&mut self) {
        if self.blank_pending && !self.lines.is_empty() {
            // A blank line inside a quote keeps the quote bars; list markers and indentation
            // are left out (and a marker not yet shown stays for the item's first line).
            let (spans, _) = self.prefix(false);
            let bars: Vec<Span<'static>> = spans
                .into_iter()
                .filter(|s| s.content == QUOTE_BAR)
                .collect();
            let mut line = Line::from(bars);
            if let Some(last) = line.spans.last_mut() {
                last.content = QUOTE_BAR.trim_end().into();
            }
            self.lines.push(line);
        }
        self.blank_pending = false;
    }

    fn push_line(&mut self, content: Vec<Span<'static>>) {
        self.push_blank_if_pending();
        let (mut spans, _) = self.prefix(true);
        spans.extend(content);
        self.lines.push(Line::from(spans));
    }

    fn push_text(&mut self, text: &str) {
        let style = self.style();
        let base = self.base_style().patch(style);
        let cleaned = clean(text);
        if let Some(cell) = &mut self.cell {
            cell.push_str(&cleaned);
            return;
        }
        // Leading/trailing whitespace separates words; keep it as explicit spaces.
        if cleaned.starts_with(' ') {
            self.inline.push(Inline::Space);
        }
        let trimmed = cleaned.trim_matches(' ');
        if !trimmed.is_empty() {
            self.inline.push(Inline::Text(trimmed.to_string(), base));
        }
        if cleaned.ends_with(' ') && !trimmed.is_empty() {
            self.inline.push(Inline::Space);
        }
    }

    /// Wraps and emits the pending inline content as one block.
    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let inline = std::mem::take(&mut self.inline);
        let avail = self.avail();
        for line in wrap::wrap(&inline, avail) {
            self.push_line(line);
        }
    }

    fn end_block(&mut self) {
        self.flush_inline();
        self.blank_pending = true;
    }

    fn push_verbatim(&mut self, text: &str, style: Style, gutter: bool) {
        // In a pane too narrow for a gutter and some code, the code gets the room.
        let gutter = gutter && self.avail() >= 4;
        let gutter_w = if gutter { 2 } else { 0 };
        let avail = self.avail().saturating_sub(gutter_w).max(1);
        let body = text.strip_suffix('\n').unwrap_or(text);
        for source_line in text::lines(body) {
            for (i, piece) in text::split_at_width(&source_line, avail)
                .into_iter()
                .enumerate()
            {
                let mut spans = Vec::new();
                if gutter {
                    let mark = if i == 0 { "│ " } else { "↪ " };
                    spans.push(Span::styled(mark, self.theme.code_gutter));
                }
                // Only a wide character in a one-cell pane can be wider than the room.
                let piece = if text::width(piece) > avail {
                    "…"
                } else {
                    piece
                };
                spans.push(Span::styled(piece.to_string(), style));
                self.push_line(spans);
            }
        }
        self.blank_pending = true;
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.flush_inline(),
            Tag::Heading { level, .. } => self.start_heading(level),
            Tag::BlockQuote(_) => {
                self.end_block();
                self.push_blank_if_pending(); // outside the quote, so without its bar
                self.frames.push(Frame::Quote);
            }
            Tag::CodeBlock(kind) => self.start_code_block(kind),
            Tag::HtmlBlock => {
                self.end_block();
                self.html = Some(String::new());
            }
            Tag::List(start) => self.start_list(start),
            Tag::Item => self.start_item(),
            Tag::Table(_) => {
                self.end_block();
                self.push_blank_if_pending();
                self.table = Some(table::Table::default());
            }
            // The header's cells arrive without a row: a row is opened for them on the first
            // cell and moved to the header when the head ends.
            Tag::TableHead => {}
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.cell = Some(String::new()),
            Tag::Emphasis => self.styles.push(self.theme.emphasis),
            Tag::Strong => self.styles.push(self.theme.strong),
            Tag::Strikethrough => self.styles.push(self.theme.strikethrough),
            Tag::Link { dest_url, .. } => {
                self.styles.push(self.theme.link);
                self.links.push((clean(&dest_url), self.inline.len()));
            }
            Tag::Image { dest_url, .. } => {
                self.push_text("[image: ");
                self.styles.push(self.theme.link);
                self.links.push((clean(&dest_url), self.inline.len()));
            }
            Tag::FootnoteDefinition(label) => {
                self.end_block();
                self.push_text(&format!("[^{label}]: "));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::FootnoteDefinition => self.end_block(),
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.frames.pop();
                self.blank_pending = true;
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                self.push_verbatim(&code, self.theme.code, true);
            }
            TagEnd::HtmlBlock => {
                let html = self.html.take().unwrap_or_default();
                self.push_verbatim(&html, self.theme.dim, false);
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.blank_pending = self.lists.is_empty();
            }
            TagEnd::Item => {
                self.flush_inline();
                self.frames.pop();
                self.blank_pending = false;
            }
            TagEnd::TableHead => {
                // The header's cells were collected into a row: move them to the header.
                if let Some(t) = &mut self.table
                    && let Some(row) = t.rows.pop()
                {
                    t.header = row;
                }
            }
            TagEnd::TableCell => self.end_cell(),
            TagEnd::Table => self.end_table(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => self.end_link(matches!(tag, TagEnd::Image)),
            _ => {}
        }
    }

    /// A heading's text follows its `#`s, in the heading's style.
    fn start_heading(&mut self, level: HeadingLevel) {
        self.flush_inline();
        let hashes = "#".repeat(heading_level(level));
        self.styles.push(self.theme.heading);
        self.inline
            .push(Inline::Text(hashes, self.base_style().patch(self.style())));
        self.inline.push(Inline::Space);
    }

    /// A fenced block's language labels it; its text is collected until it ends.
    fn start_code_block(&mut self, kind: CodeBlockKind<'_>) {
        self.end_block();
        if let CodeBlockKind::Fenced(lang) = kind
            && !lang.is_empty()
            && self.avail() >= 4
        {
            let avail = self.avail().saturating_sub(2);
            let label = text::truncate(&clean(&lang), avail).into_owned();
            self.push_line(vec![
                Span::styled("╭ ", self.theme.code_gutter),
                Span::styled(label, self.theme.dim),
            ]);
        }
        self.code = Some(String::new());
    }

    fn start_list(&mut self, start: Option<u64>) {
        // A tight list's item text arrives without a paragraph: flush it first.
        self.flush_inline();
        if self.lists.is_empty() {
            self.push_blank_if_pending();
        }
        self.blank_pending = false;
        self.lists.push(match start {
            Some(n) => ListKind::Ordered(n),
            None => ListKind::Bullet,
        });
    }

    /// An item's marker: its number in an ordered list, else a bullet for its depth.
    fn start_item(&mut self) {
        self.flush_inline();
        let depth = self.lists.len();
        let marker = match self.lists.last_mut() {
            Some(ListKind::Ordered(n)) => {
                let m = format!("{n}. ");
                *n += 1;
                m
            }
            _ => format!("{} ", ["•", "◦", "▪"][depth.saturating_sub(1) % 3]),
        };
        self.frames.push(Frame::Item {
            marker,
            shown: false,
        });
    }

    fn end_cell(&mut self) {
        let cell = self.cell.take().unwrap_or_default();
        if let Some(t) = &mut self.table {
            if t.rows.is_empty() {
                t.rows.push(Vec::new());
            }
            if let Some(row) = t.rows.last_mut() {
                row.push(cell.trim().to_string());
            }
        }
    }

    /// The table is laid out whole once its last cell is in.
    fn end_table(&mut self) {
        if let Some(t) = self.table.take() {
            let avail = self.avail();
            let rendered = table::render(
                &t,
                avail,
                self.theme.strong,
                self.theme.rule,
                self.base_style(),
            );
            for line in rendered {
                self.push_line(line);
            }
        }
        self.blank_pending = true;
    }

    /// A link's URL follows its text, unless the text is the URL.
    fn end_link(&mut self, is_image: bool) {
        self.styles.pop();
        let Some((url, start)) = self.links.pop() else {
            return;
        };
        if is_image {
            self.push_text("]");
        }
        let shown: String = self.inline[start.min(self.inline.len())..]
            .iter()
            .filter_map(|i| match i {
                Inline::Text(t, _) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        // An autolink already shows its URL.
        if !url.is_empty() && shown != url && self.cell.is_none() {
            self.inline.push(Inline::Space);
            self.inline
                .push(Inline::Text(format!("({url})"), self.theme.link_url));
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if let Some(code) = &mut self.code {
                    code.push_str(&text);
                } else if let Some(html) = &mut self.html {
                    html.push_str(&text);
                } else {
                    self.push_text(&text);
                }
            }
            Event::Code(text) => {
                if let Some(cell) = &mut self.cell {
                    cell.push_str(&clean(&text));
                } else {
                    let style = self.base_style().patch(self.style()).patch(self.theme.code);
                    self.inline.push(Inline::Text(clean(&text), style));
                }
            }
            Event::Html(text) => match &mut self.html {
                Some(html) => html.push_str(&text),
                None => self.push_verbatim(&text, self.theme.dim, false),
            },
            Event::InlineHtml(text) => {
                let style = self.theme.dim;
                self.inline.push(Inline::Text(clean(&text), style));
            }
            Event::FootnoteReference(label) => self.push_text(&format!("[^{label}]")),
            Event::SoftBreak => self.inline.push(Inline::Space),
            Event::HardBreak => self.inline.push(Inline::HardBreak),
            Event::Rule => {
                self.end_block();
                let avail = self.avail();
                self.push_line(vec![Span::styled("─".repeat(avail), self.theme.rule)]);
                self.blank_pending = true;
            }
            Event::TaskListMarker(done) => {
                self.push_text(if done { "[x] " } else { "[ ] " });
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => self.push_text(&text),
        }
    }
}

fn heading_level(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests;
