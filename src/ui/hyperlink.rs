//! OSC 8 hyperlinks over text already drawn. A ratatui cell has no room for an escape
//! sequence (its width would be miscounted and the diff would shift the row), so the
//! screen finds a link's text in the frame it drew, and once that frame is on the terminal
//! the same characters are written again at the same place wrapped in OSC 8, the cursor
//! saved and restored around them. Cells ratatui later rewrites lose the link with the
//! old text; the next frame links what is shown then.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::io::{self, Write};

/// Visible text at (`x`, `y`) that links to `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hyperlink {
    pub(crate) x: u16,
    pub(crate) y: u16,
    pub(crate) text: String,
    pub(crate) url: String,
}

/// A URL safe inside OSC 8: printable ASCII only (no escape, no bell, no spaces).
fn is_safe(url: &str) -> bool {
    !url.is_empty() && url.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// Where `url` shows in `area` of `buf`: the first row holding its start, and as much of
/// it as is shown there (a narrow pane cuts it). `None` when it is not shown or unsafe.
pub(crate) fn find(buf: &Buffer, area: Rect, url: &str) -> Option<Hyperlink> {
    if !is_safe(url) {
        return None;
    }
    let head: Vec<char> = url.chars().take(12).collect();
    for y in area.top()..area.bottom() {
        let row: Vec<&str> = (area.left()..area.right())
            .map(|x| buf[(x, y)].symbol())
            .collect();
        for start in 0..row.len() {
            let shown: String = row[start..]
                .iter()
                .zip(url.chars())
                .take_while(|(cell, c)| cell.len() == 1 && cell.starts_with(*c))
                .map(|(_, c)| c)
                .collect();
            if shown.chars().count() >= head.len() {
                return Some(Hyperlink {
                    x: area.left() + u16::try_from(start).ok()?,
                    y,
                    text: shown,
                    url: url.to_string(),
                });
            }
        }
    }
    None
}

/// Writes `links` over what is on the terminal, leaving the cursor where it was.
pub(crate) fn write(out: &mut impl Write, links: &[Hyperlink]) -> io::Result<()> {
    if links.is_empty() {
        return Ok(());
    }
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"\x1b7");
    for l in links {
        write!(
            bytes,
            "\x1b[{};{}H\x1b]8;;{}\x1b\\{}\x1b]8;;\x1b\\",
            l.y + 1,
            l.x + 1,
            l.url,
            l.text
        )?;
    }
    bytes.extend_from_slice(b"\x1b8");
    out.write_all(&bytes)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::text::Line;
    use ratatui::widgets::Widget;

    #[test]
    fn a_shown_url_is_found_where_it_is_and_cut_where_the_pane_cuts_it() {
        let area = Rect::new(0, 0, 30, 3);
        let mut buf = Buffer::empty(area);
        Line::raw("state running").render(Rect::new(0, 0, 30, 1), &mut buf);
        Line::raw("preview https://p-1234.gobare.dev/app").render(Rect::new(0, 1, 30, 1), &mut buf);
        let url = "https://p-1234.gobare.dev/app";
        let found = find(&buf, area, url).unwrap();
        assert_eq!((found.x, found.y), (8, 1));
        assert_eq!(found.text, "https://p-1234.gobare.");
        assert_eq!(found.url, url);
        assert_eq!(find(&buf, area, "https://elsewhere.example"), None);
    }

    #[test]
    fn an_unsafe_url_is_never_written() {
        let area = Rect::new(0, 0, 40, 1);
        let mut buf = Buffer::empty(area);
        let hostile = "https://x.dev/\x07\x1b]8;;evil";
        Line::raw("https://x.dev/").render(area, &mut buf);
        assert_eq!(find(&buf, area, hostile), None);
    }

    #[test]
    fn links_are_written_in_osc_8_with_the_cursor_kept() {
        let mut out = Vec::new();
        let link = Hyperlink {
            x: 4,
            y: 2,
            text: "https://a.dev".into(),
            url: "https://a.dev".into(),
        };
        write(&mut out, &[link]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\x1b7\x1b[3;5H\x1b]8;;https://a.dev\x1b\\https://a.dev\x1b]8;;\x1b\\\x1b8"
        );
    }
}
