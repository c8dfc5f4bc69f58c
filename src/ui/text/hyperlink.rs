//! OSC 8 hyperlinks over what a frame drew. ratatui's buffer never holds the escapes (a
//! cell's symbol with an escape in it would be measured as wide and break the diff's
//! cell widths); instead, after a frame, the http(s) URLs drawn in an area are found in
//! the finished buffer and written again at the same place wrapped in OSC 8, the cursor
//! saved and restored around them. The screen looks the same; terminals that know OSC 8
//! make the text clickable, the others ignore the sequence. The text is written again in
//! the style it was drawn with, so nothing on screen changes.

use crate::session::transcript::{link_end, web_link};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

/// One URL drawn on screen, at column `x` of row `y`, in `style`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) x: u16,
    pub(crate) y: u16,
    pub(crate) url: String,
    pub(crate) style: Style,
}

/// The http(s) URLs drawn in `area` of `buf`, whole within one row.
pub(crate) fn find(buf: &Buffer, area: Rect) -> Vec<Link> {
    let area = area.intersection(buf.area);
    let mut links = Vec::new();
    // One row as text, and the column each of its characters starts at (by byte offset).
    let mut row = String::new();
    let mut cols: Vec<(usize, u16)> = Vec::new();
    for y in area.top()..area.bottom() {
        let start = buf.index_of(area.left(), y);
        let cells = &buf.content[start..start + usize::from(area.width)];
        // Most rows hold no link: those are passed over without building their text.
        let maybe = cells.windows(4).any(|w| {
            w[0].symbol() == "h"
                && w[1].symbol() == "t"
                && w[2].symbol() == "t"
                && w[3].symbol() == "p"
        });
        if !maybe {
            continue;
        }
        row.clear();
        cols.clear();
        for (x, cell) in (area.left()..).zip(cells) {
            let symbol = cell.symbol();
            if symbol.is_empty() {
                continue; // the second half of a wide character
            }
            cols.push((row.len(), x));
            row.push_str(symbol);
        }
        let mut from = 0;
        while let Some(at) = row[from..].find("http") {
            let start = from + at;
            let rest = &row[start..];
            let end = rest
                .find(|c: char| !is_url_char(c))
                .unwrap_or(rest.len())
                .min(link_end(rest));
            let url = rest[..end].trim_end_matches(['.', ',', ';', ':', ')', ']', '!', '?']);
            // A URL that runs into the area's edge or an ellipsis may be cut: linking what
            // shows would open another address.
            let after = rest[end..].chars().next();
            let cut = end == rest.len() && url.len() == end || after == Some('…');
            if (url.starts_with("https://") || url.starts_with("http://"))
                && web_link(url).is_some()
                && !cut
            {
                // Cells hold whole characters: `start` is where one of them starts.
                let i = cols.partition_point(|&(byte, _)| byte < start);
                if let Some(&(_, x)) = cols.get(i) {
                    links.push(Link {
                        x,
                        y,
                        url: url.to_string(),
                        style: buf[(x, y)].style(),
                    });
                }
            }
            from = start + end.max(4);
        }
    }
    links
}

/// Characters a URL is drawn with (RFC 3986's, which are all printable ASCII).
fn is_url_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c)
}

/// The bytes that make `links` clickable: for each, move there, open the link, write its
/// text again, close the link; the cursor is saved before and restored after.
pub(crate) fn osc8_bytes(links: &[Link]) -> Vec<u8> {
    if links.is_empty() {
        return Vec::new();
    }
    let mut out = String::from("\x1b7");
    for l in links {
        // Only URL characters: nothing in them can end the sequence early.
        out.push_str(&format!(
            "\x1b[{};{}H{}\x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\\x1b[0m",
            l.y + 1,
            l.x + 1,
            sgr(l.style),
            url = l.url
        ));
    }
    // Restores the cursor and the attributes ratatui left.
    out.push_str("\x1b8");
    out.into_bytes()
}

/// The SGR sequence that draws in `style` (from the default attributes).
fn sgr(style: Style) -> String {
    let mut codes = vec!["0".to_string()];
    let m = style.add_modifier;
    for (flag, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if m.contains(flag) {
            codes.push(code.into());
        }
    }
    if let Some(c) = style.fg.and_then(|c| color(c, false)) {
        codes.push(c);
    }
    if let Some(c) = style.bg.and_then(|c| color(c, true)) {
        codes.push(c);
    }
    format!("\x1b[{}m", codes.join(";"))
}

fn color(c: Color, bg: bool) -> Option<String> {
    let base = if bg { 40 } else { 30 };
    let ext = if bg { 48 } else { 38 };
    let named = |n: u8| Some((base + n).to_string());
    let bright = |n: u8| Some((base + 60 + n).to_string());
    match c {
        Color::Reset => None,
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => bright(0),
        Color::LightRed => bright(1),
        Color::LightGreen => bright(2),
        Color::LightYellow => bright(3),
        Color::LightBlue => bright(4),
        Color::LightMagenta => bright(5),
        Color::LightCyan => bright(6),
        Color::White => bright(7),
        Color::Indexed(i) => Some(format!("{ext};5;{i}")),
        Color::Rgb(r, g, b) => Some(format!("{ext};2;{r};{g};{b}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::text::Line;
    use ratatui::widgets::{Paragraph, Widget};

    #[test]
    fn finds_web_urls_where_they_are_drawn() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 60, 3));
        let accent = Style::new()
            .fg(Color::Indexed(6))
            .add_modifier(Modifier::BOLD);
        Paragraph::new(vec![
            Line::styled("  ⇗ preview ready :3000 https://s-1.gobare.dev/x.", accent),
            Line::from("日本 see http://a.example/b and file:///etc/x"),
            Line::from("javascript:alert(1) https:// https://cut.example/lo…"),
        ])
        .render(buf.area, &mut buf);
        let links = find(&buf, buf.area);
        let found: Vec<(u16, u16, &str)> =
            links.iter().map(|l| (l.x, l.y, l.url.as_str())).collect();
        assert_eq!(
            found,
            vec![
                (24, 0, "https://s-1.gobare.dev/x"),
                (9, 1, "http://a.example/b")
            ]
        );
        assert_eq!(links[0].style.fg, Some(Color::Indexed(6)));
        let mut edge = Buffer::empty(Rect::new(0, 0, 30, 1));
        Line::from("see https://cut.example/a/long").render(edge.area, &mut edge);
        assert_eq!(
            find(&edge, edge.area),
            vec![],
            "cut by the edge: never linked"
        );
        let bytes = String::from_utf8(osc8_bytes(&links)).unwrap();
        // In the style it was drawn with, the attributes reset after it.
        assert!(bytes.starts_with("\x1b7\x1b[1;25H\x1b[0;1;38;5;6m\x1b]8;;https://s-1.gobare.dev/x\x1b\\https://s-1.gobare.dev/x\x1b]8;;\x1b\\\x1b[0m"), "{bytes:?}");
        assert!(bytes.ends_with("\x1b8"));
    }

    #[test]
    fn a_markdown_link_drawn_as_written_is_two_links_not_one() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 60, 1));
        Line::from("[https://a.example/x](https://b.example/y) ok").render(buf.area, &mut buf);
        let urls: Vec<String> = find(&buf, buf.area).into_iter().map(|l| l.url).collect();
        assert_eq!(urls, ["https://a.example/x", "https://b.example/y"]);
    }
}
