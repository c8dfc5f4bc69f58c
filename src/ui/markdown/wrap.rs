//! Greedy word wrapping of styled inline text by display width.

use ratatui::style::Style;
use ratatui::text::Span;
use unicode_segmentation::UnicodeSegmentation;

use crate::ui::sanitize;

/// One piece of inline content, already sanitized.
#[derive(Debug, Clone)]
pub(crate) enum Inline {
    Text(String, Style),
    /// A space that separates words (soft breaks and runs of whitespace collapse into one).
    Space,
    HardBreak,
}

/// A word: consecutive non-space text, possibly in several styles (`**bold**,` keeps its comma).
type Word = Vec<(String, Style)>;

/// Splits inline content into words and breaks.
fn words(inlines: &[Inline]) -> Vec<Option<Word>> {
    // `None` marks a hard break.
    let mut out: Vec<Option<Word>> = Vec::new();
    let mut word: Word = Vec::new();
    let flush = |word: &mut Word, out: &mut Vec<Option<Word>>| {
        if !word.is_empty() {
            out.push(Some(std::mem::take(word)));
        }
    };
    for inline in inlines {
        match inline {
            Inline::Space => flush(&mut word, &mut out),
            Inline::HardBreak => {
                flush(&mut word, &mut out);
                out.push(None);
            }
            Inline::Text(text, style) => {
                for (i, part) in text.split(' ').enumerate() {
                    if i > 0 {
                        flush(&mut word, &mut out);
                    }
                    if part.is_empty() {
                        continue;
                    }
                    match word.last_mut() {
                        Some((t, s)) if s == style => t.push_str(part),
                        _ => word.push((part.to_string(), *style)),
                    }
                }
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

struct Lines {
    avail: usize,
    done: Vec<Vec<Span<'static>>>,
    cur: Vec<Span<'static>>,
    cur_w: usize,
}

impl Lines {
    fn push(&mut self, text: &str, style: Style, w: usize) {
        match self.cur.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.cur.push(Span::styled(text.to_string(), style)),
        }
        self.cur_w += w;
    }

    fn newline(&mut self) {
        self.done.push(std::mem::take(&mut self.cur));
        self.cur_w = 0;
    }

    /// A word wider than a whole line: broken between graphemes.
    fn push_hard_wrapped(&mut self, word: &Word) {
        for (text, style) in word {
            for g in text.graphemes(true) {
                let mut gw = sanitize::width(g);
                let mut g = g;
                if gw > self.avail {
                    // A wide character in a line narrower than it: show that something is there.
                    g = "…";
                    gw = 1;
                }
                if self.cur_w + gw > self.avail && self.cur_w > 0 {
                    self.newline();
                }
                self.push(g, *style, gw);
            }
        }
    }

    fn push_word(&mut self, word: &Word) {
        let w: usize = word.iter().map(|(t, _)| sanitize::width(t)).sum();
        if self.cur_w > 0 {
            if self.cur_w + 1 + w <= self.avail {
                self.push(" ", Style::default(), 1);
            } else {
                self.newline();
            }
        }
        if w <= self.avail {
            for (text, style) in word {
                self.push(text, *style, sanitize::width(text));
            }
        } else {
            self.push_hard_wrapped(word);
        }
    }
}

/// Wraps inline content into lines of at most `avail` cells (at least one line, possibly
/// empty). `avail` must be at least 1.
pub(crate) fn wrap(inlines: &[Inline], avail: usize) -> Vec<Vec<Span<'static>>> {
    let mut lines = Lines {
        avail: avail.max(1),
        done: Vec::new(),
        cur: Vec::new(),
        cur_w: 0,
    };
    for word in words(inlines) {
        match word {
            Some(word) => lines.push_word(&word),
            None => lines.newline(),
        }
    }
    if !lines.cur.is_empty() || lines.done.is_empty() {
        lines.newline();
    }
    lines.done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Vec<Span<'static>>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    fn plain(s: &str) -> Inline {
        Inline::Text(s.to_string(), Style::default())
    }

    #[test]
    fn wraps_at_word_boundaries() {
        let out = wrap(&[plain("the quick brown fox jumps")], 10);
        assert_eq!(text(&out), vec!["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn hard_wraps_long_words() {
        let out = wrap(&[plain("abcdefghij klm")], 4);
        assert_eq!(text(&out), vec!["abcd", "efgh", "ij", "klm"]);
    }

    #[test]
    fn wraps_by_display_width() {
        let out = wrap(&[plain("世界 世界 世界")], 9);
        assert_eq!(text(&out), vec!["世界 世界", "世界"]);
    }

    #[test]
    fn styled_word_keeps_its_punctuation() {
        let bold = Style::default().bold();
        let out = wrap(
            &[
                plain("aaaa "),
                Inline::Text("bb".into(), bold),
                plain(", cc"),
            ],
            7,
        );
        assert_eq!(text(&out), vec!["aaaa", "bb, cc"]);
    }

    #[test]
    fn hard_break_starts_a_new_line() {
        let out = wrap(&[plain("a"), Inline::HardBreak, plain("b")], 10);
        assert_eq!(text(&out), vec!["a", "b"]);
    }
}
