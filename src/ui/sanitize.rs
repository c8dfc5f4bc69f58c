//! Server text → text that is safe to put in a terminal cell.
//!
//! Everything a model (or whoever steered it) wrote reaches the terminal through here. Nothing
//! that a terminal interprets is passed through: control characters become visible Control
//! Pictures (`␛`, `␀`…`␟`), invisible or direction-changing format characters become
//! `⟨U+XXXX⟩`. An escape sequence is therefore shown as `␛` followed by its (now inert) tail
//! as plain text, so a reader can see that something tried to move the cursor, set the window
//! title or write the clipboard.
//!
//! The fast path (nothing to change) returns `Cow::Borrowed`: this runs on every drawn line.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// How many spaces a tab becomes in [`lines`]. A fixed width (not tab stops) keeps wrapping
/// and width computations independent of the column a line starts at.
pub(crate) const TAB_WIDTH: usize = 4;

/// True for characters that must never reach the terminal as themselves.
pub(crate) fn is_unsafe(c: char) -> bool {
    let u = c as u32;
    if u < 0x7f {
        return u < 0x20; // printable ASCII: the common case, decided in one comparison
    }
    u < 0x20                              // C0 controls, including ESC, CR, LF, TAB
        || u == 0x7f                      // DEL
        || (0x80..=0x9f).contains(&u)     // C1 controls: 8-bit CSI (U+009B), OSC (U+009D), …
        || is_invisible_format(c)
}

/// Bidi controls, zero-width and other invisible format characters: they change how the
/// surrounding text looks (reordering, hiding, joining) without occupying a cell.
fn is_invisible_format(c: char) -> bool {
    (matches!(c as u32,
        0x00AD                 // soft hyphen
        | 0x034F               // combining grapheme joiner
        | 0x061C               // Arabic letter mark
        | 0x115F | 0x1160      // Hangul fillers
        | 0x17B4 | 0x17B5      // Khmer inherent vowels
        | 0x180B..=0x180F      // Mongolian variation selectors / vowel separator
        | 0x200B..=0x200F      // zero-width space/non-joiner/joiner, LRM, RLM
        | 0x2028 | 0x2029      // line / paragraph separator
        | 0x202A..=0x202E      // bidi embeddings and overrides
        | 0x2060..=0x206F      // word joiner, invisible operators, bidi isolates, deprecated
        | 0x3164               // Hangul filler
        | 0xFE00..=0xFE0F      // variation selectors (VS16 is handled by the caller: see below)
        | 0xFEFF               // BOM / zero-width no-break space
        | 0xFFA0               // halfwidth Hangul filler
        | 0xFFF0..=0xFFFB      // unassigned specials and interlinear annotation
        | 0x1D173..=0x1D17A    // musical format characters
        | 0xE0000..=0xE0FFF    // tags, variation selectors supplement
    ) && !is_emoji_presentation_selector(c))
        || is_noncharacter(c)
}

/// VS15/VS16 select text or emoji presentation of the preceding character; they are part of
/// ordinary emoji sequences and harmless, so they are allowed through.
fn is_emoji_presentation_selector(c: char) -> bool {
    matches!(c, '\u{FE0E}' | '\u{FE0F}')
}

/// Unicode noncharacters (U+FDD0–U+FDEF, U+xFFFE/U+xFFFF): never text, often a marker of
/// binary or deliberately malformed input.
fn is_noncharacter(c: char) -> bool {
    let u = c as u32;
    (0xFDD0..=0xFDEF).contains(&u) || (u & 0xFFFE) == 0xFFFE
}

/// Appends the visible stand-in for an unsafe character.
fn push_visible(out: &mut String, c: char) {
    let u = c as u32;
    if u < 0x20 {
        // Control Pictures: U+2400 + code, e.g. ESC (0x1b) → ␛.
        out.push(char::from_u32(0x2400 + u).unwrap_or('\u{FFFD}'));
    } else if u == 0x7f {
        out.push('␡');
    } else {
        let _ = write!(out, "⟨U+{u:04X}⟩");
    }
}

/// Zero-width marks (combining accents, variation selectors…) kept on one character. Real text
/// needs a few; "Zalgo" text stacks hundreds, which smear over neighbouring rows in many
/// terminals and bloat every cell they land in. The excess is dropped.
pub(crate) const MAX_MARKS_PER_CHAR: usize = 8;

fn is_zero_width_mark(c: char) -> bool {
    !c.is_ascii() && unicode_width::UnicodeWidthChar::width(c) == Some(0)
}

/// Byte offset of the first character that [`line`] must change, if any.
fn first_change(s: &str) -> Option<usize> {
    if s.is_ascii() {
        return s.bytes().position(|b| b < 0x20 || b == 0x7f);
    }
    let mut marks = 0;
    for (i, c) in s.char_indices() {
        if is_unsafe(c) {
            return Some(i);
        }
        marks = if is_zero_width_mark(c) { marks + 1 } else { 0 };
        if marks > MAX_MARKS_PER_CHAR {
            return Some(i);
        }
    }
    None
}

/// One line of server text, safe to display: control characters, escape sequences, bidi
/// overrides and zero-width characters are made visible (e.g. `␛`, `\u{202e}` as `⟨U+202E⟩`),
/// never passed through; marks beyond [`MAX_MARKS_PER_CHAR`] on one character are dropped.
/// Newlines and tabs are made visible too (`␊`, `␉`); use [`lines`] for multi-line text.
pub(crate) fn line(s: &str) -> Cow<'_, str> {
    let Some(first) = first_change(s) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    // Count the marks already copied, so the cap also holds across the boundary.
    let mut marks = s[..first]
        .chars()
        .rev()
        .take_while(|&c| is_zero_width_mark(c))
        .count();
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if is_unsafe(c) {
            push_visible(&mut out, c);
            marks = 0;
        } else if is_zero_width_mark(c) {
            marks += 1;
            if marks <= MAX_MARKS_PER_CHAR {
                out.push(c);
            }
        } else {
            out.push(c);
            marks = 0;
        }
    }
    Cow::Owned(out)
}

/// Multi-line server text: `\n`, `\r\n` and a lone `\r` separate lines, tabs become
/// [`TAB_WIDTH`] spaces, and each line is then made safe as in [`line`].
pub(crate) fn lines(s: &str) -> Vec<Cow<'_, str>> {
    // A lone `\r` would, in a terminal, return to column 0 and let later text overwrite what
    // came before (a classic way to hide text); treating it as a line break shows both.
    s.split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
        .map(|l| {
            if l.contains('\t') {
                Cow::Owned(line(&l.replace('\t', &" ".repeat(TAB_WIDTH))).into_owned())
            } else {
                line(l)
            }
        })
        .collect()
}

/// Display width in terminal cells (East Asian wide characters count 2, combining marks 0),
/// counted the way ratatui's buffer places text: grapheme by grapheme. (Summing graphemes
/// rather than taking `UnicodeWidthStr::width` of the whole string matters for cross-grapheme
/// ligatures such as Arabic lam-alef, which would otherwise be one cell short of what is drawn.)
pub(crate) fn width(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.graphemes(true).map(UnicodeWidthStr::width).sum()
}

/// Cuts `s` to at most `max_cols` cells, ending with `…` when anything was cut; never splits
/// a grapheme cluster (an emoji with modifiers or a letter with its accents stays whole).
/// `s` should already be sanitized.
pub(crate) fn truncate(s: &str, max_cols: usize) -> Cow<'_, str> {
    if width(s) <= max_cols {
        return Cow::Borrowed(s);
    }
    if max_cols == 0 {
        return Cow::Borrowed("");
    }
    let budget = max_cols - 1; // room for the ellipsis
    let mut used = 0;
    let mut end = 0;
    for (i, g) in s.grapheme_indices(true) {
        let w = width(g);
        if used + w > budget {
            break;
        }
        used += w;
        end = i + g.len();
    }
    Cow::Owned(format!("{}…", &s[..end]))
}

/// Splits `s` at grapheme boundaries into pieces of at most `max_cols` cells (at least one
/// grapheme per piece, so a 2-cell character in a 1-cell budget still makes progress).
pub(crate) fn split_at_width(s: &str, max_cols: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, g) in s.grapheme_indices(true) {
        let w = width(g);
        if used + w > max_cols && i > start {
            pieces.push(&s[start..i]);
            start = i;
            used = 0;
        }
        used += w;
    }
    if start < s.len() || pieces.is_empty() {
        pieces.push(&s[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn owned(s: &str) -> String {
        line(s).into_owned()
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(line("hello, 世界 👋"), Cow::Borrowed(_)));
        assert!(matches!(line(""), Cow::Borrowed(_)));
    }

    #[test]
    fn c0_controls_become_control_pictures() {
        assert_eq!(owned("a\0b\x07c\x08d"), "a␀b␇c␈d");
        assert_eq!(owned("\x1f"), "␟");
        assert_eq!(owned("x\ty\nz\r"), "x␉y␊z␍");
    }

    #[test]
    fn del_is_visible() {
        assert_eq!(owned("a\x7fb"), "a␡b");
    }

    #[test]
    fn c1_controls_and_8bit_csi_osc_are_visible() {
        assert_eq!(owned("\u{9b}31m"), "⟨U+009B⟩31m");
        assert_eq!(owned("\u{9d}0;pwned\u{9c}"), "⟨U+009D⟩0;pwned⟨U+009C⟩");
        assert_eq!(owned("\u{85}"), "⟨U+0085⟩");
    }

    #[test]
    fn csi_sequence_is_inert() {
        assert_eq!(owned("\x1b[31mred\x1b[0m"), "␛[31mred␛[0m");
        assert_eq!(owned("\x1b[2J\x1b[H"), "␛[2J␛[H");
    }

    #[test]
    fn alternate_screen_switch_is_inert() {
        assert_eq!(owned("\x1b[?1049h"), "␛[?1049h");
        assert_eq!(owned("\x1b[?1049l"), "␛[?1049l");
    }

    #[test]
    fn osc_clipboard_title_and_hyperlink_are_inert() {
        assert_eq!(owned("\x1b]52;c;cm0gLXJmIC8=\x07"), "␛]52;c;cm0gLXJmIC8=␇");
        assert_eq!(owned("\x1b]0;title\x1b\\"), "␛]0;title␛\\");
        assert_eq!(owned("\x1b]2;t\x07"), "␛]2;t␇");
        assert_eq!(
            owned("\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\"),
            "␛]8;;http://evil␛\\click␛]8;;␛\\"
        );
    }

    #[test]
    fn dcs_apc_pm_sos_are_inert() {
        assert_eq!(owned("\x1bPq#0\x1b\\"), "␛Pq#0␛\\");
        assert_eq!(owned("\x1b_apc\x1b\\"), "␛_apc␛\\");
        assert_eq!(owned("\x1b^pm\x1b\\"), "␛^pm␛\\");
        assert_eq!(owned("\x1bXsos\x1b\\"), "␛Xsos␛\\");
        assert_eq!(owned("\u{90}dcs\u{9c}"), "⟨U+0090⟩dcs⟨U+009C⟩");
    }

    #[test]
    fn bidi_controls_are_visible() {
        for c in [
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
        ] {
            let out = owned(&format!("a{c}b"));
            assert_eq!(out, format!("a⟨U+{:04X}⟩b", c as u32));
        }
    }

    #[test]
    fn zero_width_characters_are_visible() {
        for c in [
            '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{00AD}',
        ] {
            let out = owned(&format!("a{c}b"));
            assert_eq!(out, format!("a⟨U+{:04X}⟩b", c as u32));
        }
    }

    #[test]
    fn stacked_marks_are_capped() {
        let zalgo = format!("a{}b", "\u{301}".repeat(100));
        let out = owned(&zalgo);
        assert_eq!(out, format!("a{}b", "\u{301}".repeat(MAX_MARKS_PER_CHAR)));
        assert_eq!(width(&out), 2);
        // Ordinary accents and emoji sequences are untouched.
        assert!(matches!(
            line("e\u{301}\u{323} 1\u{FE0F}\u{20E3}"),
            Cow::Borrowed(_)
        ));
        // The cap holds when an earlier character forced the slow path.
        let mixed = format!("\x07{}", "\u{301}".repeat(20));
        assert_eq!(
            owned(&mixed).chars().filter(|&c| c == '\u{301}').count(),
            MAX_MARKS_PER_CHAR
        );
    }

    #[test]
    fn emoji_presentation_selector_passes() {
        assert!(matches!(line("❤\u{FE0F}"), Cow::Borrowed(_)));
    }

    #[test]
    fn lines_split_on_all_line_endings_and_expand_tabs() {
        let out: Vec<String> = lines("a\r\nb\rc\nd\te")
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(out, vec!["a", "b", "c", "d    e"]);
        let hostile: Vec<String> = lines("x\x1b[2Ky\n")
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(hostile, vec!["x␛[2Ky", ""]);
    }

    #[test]
    fn lines_borrow_when_clean() {
        assert!(lines("a\nb").iter().all(|l| matches!(l, Cow::Borrowed(_))));
    }

    #[test]
    fn width_counts_cells() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("世界"), 4);
        assert_eq!(width("e\u{301}"), 1);
    }

    #[test]
    fn truncate_ends_with_ellipsis_and_respects_width() {
        assert_eq!(truncate("hello", 10), "hello");
        assert_eq!(truncate("hello world", 8), "hello w…");
        assert_eq!(truncate("世界世界", 5), "世界…");
        assert_eq!(truncate("世界世界", 4), "世…");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(truncate("abc", 1), "…");
    }

    #[test]
    fn truncate_never_splits_a_grapheme() {
        // Family emoji (ZWJ sequence) and an accented letter are single graphemes.
        let family = "👨\u{200D}👩\u{200D}👧";
        let s = format!("ab{family}cd");
        let t = truncate(&s, 4);
        assert_eq!(t, "ab…");
        let accented = "e\u{301}e\u{301}e\u{301}";
        assert_eq!(truncate(accented, 2), "e\u{301}…");
    }

    #[test]
    fn split_at_width_makes_progress_on_wide_chars() {
        assert_eq!(split_at_width("世界", 1), vec!["世", "界"]);
        assert_eq!(split_at_width("abcde", 2), vec!["ab", "cd", "e"]);
        assert_eq!(split_at_width("", 3), vec![""]);
    }

    fn forbidden(c: char) -> bool {
        let u = c as u32;
        u < 0x20
            || u == 0x7f
            || (0x80..=0x9f).contains(&u)
            || (0x202A..=0x202E).contains(&u)
            || (0x2066..=0x2069).contains(&u)
            || matches!(u, 0x200B..=0x200F | 0x2060 | 0xFEFF | 0x061C)
    }

    fn hostile_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => Just('\u{301}'),
            1 => any::<char>(),
            1 => (0u32..0x20).prop_map(|u| char::from_u32(u).unwrap()),
            1 => (0x7fu32..0xa0).prop_map(|u| char::from_u32(u).unwrap()),
            1 => prop::sample::select(vec![
                '\u{1b}', '\u{202E}', '\u{2066}', '\u{200B}', '\u{200D}', '\u{FEFF}', '\u{61C}',
                '世', 'é', '\u{301}', '👍', '[', ']', ';'
            ]),
        ]
    }

    proptest! {
        #[test]
        fn line_output_has_no_forbidden_chars(chars in prop::collection::vec(hostile_char(), 0..64)) {
            let s: String = chars.into_iter().collect();
            let out = line(&s);
            prop_assert!(!out.chars().any(forbidden), "{:?} -> {:?}", s, out);
            let mut run = 0;
            for c in out.chars() {
                run = if is_zero_width_mark(c) { run + 1 } else { 0 };
                prop_assert!(run <= MAX_MARKS_PER_CHAR);
            }
            for l in lines(&s) {
                prop_assert!(!l.chars().any(forbidden));
            }
        }

        #[test]
        fn width_is_sum_of_cell_widths(chars in prop::collection::vec(hostile_char(), 0..64)) {
            let s: String = chars.into_iter().collect();
            let out = line(&s);
            // The cells ratatui actually fills when it draws the line.
            let mut buf = Buffer::empty(Rect::new(0, 0, 1000, 1));
            let (end_x, _) = buf.set_stringn(0, 0, &out, usize::MAX, Style::default());
            prop_assert_eq!(width(&out), usize::from(end_x), "{:?}", out);
        }

        #[test]
        fn truncate_fits(chars in prop::collection::vec(hostile_char(), 0..64), max in 0usize..40) {
            let s: String = chars.into_iter().collect();
            let safe = line(&s);
            prop_assert!(width(&truncate(&safe, max)) <= max);
        }
    }
}
