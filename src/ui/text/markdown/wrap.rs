//! Markdown's inline content, word-wrapped by display width with [`text::wrap_words`].

use gobare_api::text::{self, Token};
use ratatui::style::Style;
use ratatui::text::Span;

/// One piece of inline content, already sanitized.
#[derive(Debug, Clone)]
pub(crate) enum Inline {
    Text(String, Style),
    /// A space that separates words (soft breaks and runs of whitespace collapse into one).
    Space,
    HardBreak,
}

/// Splits inline content into words (consecutive non-space text, possibly in several styles:
/// `**bold**,` keeps its comma) and breaks. Markdown collapses whitespace: every gap is one
/// space.
fn words(inlines: &[Inline]) -> Vec<Token<Style>> {
    let mut out = Vec::new();
    let mut word: Vec<(String, Style)> = Vec::new();
    let flush = |word: &mut Vec<(String, Style)>, out: &mut Vec<Token<Style>>| {
        if !word.is_empty() {
            out.push(Token::Word {
                gap: 1,
                runs: std::mem::take(word),
            });
        }
    };
    for inline in inlines {
        match inline {
            Inline::Space => flush(&mut word, &mut out),
            Inline::HardBreak => {
                flush(&mut word, &mut out);
                out.push(Token::Break);
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

/// Wraps inline content into lines of at most `avail` cells (at least one line, possibly
/// empty). `avail` must be at least 1.
pub(crate) fn wrap(inlines: &[Inline], avail: usize) -> Vec<Vec<Span<'static>>> {
    text::wrap_words(words(inlines), avail)
        .into_iter()
        .map(|runs| {
            runs.into_iter()
                .map(|(content, style)| Span::styled(content, style))
                .collect()
        })
        .collect()
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
