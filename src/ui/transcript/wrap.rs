//! Width-correct wrapping and truncation of sanitized text and styled lines.

use crate::ui::sanitize;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Server text, sanitized and word-wrapped to `width` columns (long words are split).
pub(crate) fn wrap_plain(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for raw in sanitize::lines(text) {
        let mut line = String::new();
        let mut used = 0;
        for word in raw.split(' ') {
            let ww: usize = word.chars().map(char_width).sum();
            let sep = usize::from(!line.is_empty());
            if used + sep + ww <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(word);
                used += sep + ww;
                continue;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
                used = 0;
            }
            for c in word.chars() {
                let cw = char_width(c);
                if used + cw > width {
                    out.push(std::mem::take(&mut line));
                    used = 0;
                }
                line.push(c);
                used += cw;
            }
        }
        out.push(line);
    }
    out
}

/// Splits a styled line into lines at most `width` columns wide.
pub(crate) fn hard_wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    if line.width() <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut buf = String::new();
        for c in span.content.chars() {
            let cw = char_width(c);
            if used + cw > width {
                if !buf.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut buf), span.style));
                }
                out.push(Line::from(std::mem::take(&mut current)).style(line.style));
                used = 0;
            }
            buf.push(c);
            used += cw;
        }
        if !buf.is_empty() {
            current.push(Span::styled(buf, span.style));
        }
    }
    if !current.is_empty() {
        out.push(Line::from(current).style(line.style));
    }
    out
}

/// Cuts a styled line to `width` columns, ending in `…` when cut.
pub(crate) fn truncate(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut spans = Vec::new();
    let mut used = 0;
    let limit = width.saturating_sub(1);
    'outer: for span in line.spans {
        let mut buf = String::new();
        for c in span.content.chars() {
            let cw = char_width(c);
            if used + cw > limit {
                spans.push(Span::styled(buf, span.style));
                break 'outer;
            }
            buf.push(c);
            used += cw;
        }
        spans.push(Span::styled(buf, span.style));
    }
    spans.push(Span::raw("…"));
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_plain_splits_words_and_long_tokens() {
        assert_eq!(wrap_plain("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap_plain("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap_plain("a\nb", 10), vec!["a", "b"]);
    }

    #[test]
    fn truncate_and_hard_wrap_respect_width() {
        let l = Line::from("héllo world");
        assert_eq!(truncate(l.clone(), 6).width(), 6);
        assert!(hard_wrap(l, 4).iter().all(|x| x.width() <= 4));
    }
}
