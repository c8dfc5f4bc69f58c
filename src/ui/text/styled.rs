//! Styled lines laid out by [`gobare_api::text`]'s rules: a ratatui [`Line`] cut or
//! hard-wrapped to a width between graphemes. The text module knows no terminal library, so
//! this is where its styled runs become spans.

use gobare_api::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The line's spans as the text module's runs (text with its style).
fn runs(spans: Vec<Span<'static>>) -> Vec<(String, Style)> {
    spans
        .into_iter()
        .map(|span| (span.content.into_owned(), span.style))
        .collect()
}

fn spans(runs: Vec<(String, Style)>) -> Vec<Span<'static>> {
    runs.into_iter()
        .map(|(content, style)| Span::styled(content, style))
        .collect()
}

fn width(line: &Line<'_>) -> usize {
    line.spans
        .iter()
        .map(|span| text::width(&span.content))
        .sum()
}

/// Splits a styled line into lines at most `width` columns wide.
pub(crate) fn hard_wrap(line: Line<'static>, width_cols: usize) -> Vec<Line<'static>> {
    if width(&line) <= width_cols.max(1) {
        return vec![line];
    }
    let style = line.style;
    text::hard_wrap_runs(runs(line.spans), width_cols)
        .into_iter()
        .map(|runs| Line::from(spans(runs)).style(style))
        .collect()
}

/// Cuts a styled line to `width` columns, ending in `…` when cut.
pub(crate) fn truncate(line: Line<'static>, width_cols: usize) -> Line<'static> {
    if width(&line) <= width_cols {
        return line;
    }
    let style = line.style;
    Line::from(spans(text::truncate_runs(runs(line.spans), width_cols))).style(style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;

    #[test]
    fn truncate_and_hard_wrap_respect_width() {
        let l = Line::from("héllo world");
        assert_eq!(truncate(l.clone(), 6).width(), 6);
        assert!(hard_wrap(l, 4).iter().all(|x| x.width() <= 4));
    }

    /// The halfwidth katakana sound marks, alone and after their kana: the buffer gives
    /// each a cell more than `unicode-width` says, and so does the text module's width.
    #[test]
    fn halfwidth_sound_marks_fill_what_their_width_says() {
        for s in [
            "\u{FF9E}",
            "\u{FF9F}",
            "\u{FF76}\u{FF9E}",
            "a\u{FF8A}\u{FF9F}b",
            "\u{FF9E}\u{301}",
        ] {
            let mut buf = Buffer::empty(Rect::new(0, 0, 100, 1));
            let (end_x, _) = buf.set_stringn(0, 0, s, usize::MAX, Style::default());
            assert_eq!(text::width(s), usize::from(end_x), "{s:?}");
        }
    }

    fn hostile_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => Just('\u{301}'),
            1 => any::<char>(),
            1 => (0u32..0x20).prop_map(|u| char::from_u32(u).unwrap()),
            1 => (0x7fu32..0xa0).prop_map(|u| char::from_u32(u).unwrap()),
            1 => prop::sample::select(vec![
                '\u{1b}', '\u{202E}', '\u{2066}', '\u{200B}', '\u{200D}', '\u{FEFF}', '\u{61C}',
                '世', 'é', '\u{301}', '👍', '[', ']', ';', '\u{FF76}', '\u{FF9E}', '\u{FF9F}'
            ]),
        ]
    }

    proptest! {
        /// The text module's width is what ratatui's buffer fills when it draws the line.
        #[test]
        fn width_is_sum_of_cell_widths(chars in prop::collection::vec(hostile_char(), 0..64)) {
            let s: String = chars.into_iter().collect();
            let out = text::line(&s);
            let mut buf = Buffer::empty(Rect::new(0, 0, 1000, 1));
            let (end_x, _) = buf.set_stringn(0, 0, &out, usize::MAX, Style::default());
            prop_assert_eq!(text::width(&out), usize::from(end_x), "{:?}", out);
        }
    }
}
