//! Server text is hostile until it passes through here: one set of rules for which characters
//! may reach a terminal, how wide text is, and where it may be cut or wrapped.
//!
//! Everything a model (or whoever steered it) wrote reaches the terminal, a file or stderr
//! through this module. Nothing that a terminal interprets is passed through: [`line()`] turns
//! control characters into visible Control Pictures (`␛`, `␀`…`␟`) and invisible or
//! direction-changing format characters into `⟨U+XXXX⟩`, so an escape sequence shows as `␛`
//! followed by its (now inert) tail and a reader can see that something tried to move the
//! cursor, set the window title or write the clipboard. [`one_line`] is the compact form for
//! error messages: the same characters become U+FFFD.
//!
//! Widths are terminal cells counted grapheme by grapheme, the way a terminal buffer places
//! text; cutting and wrapping ([`truncate`], [`split_at_width`], [`wrap`], [`wrap_words`],
//! [`hard_wrap_runs`], [`truncate_runs`]) happen only between grapheme clusters, so an emoji
//! with modifiers or a letter with its accents is never split. The `*_runs` and [`wrap_words`]
//! forms carry a caller's style type `S` beside each piece of text (plain text uses `()`), so
//! styled views lay out by the same rules without this crate knowing any terminal library.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// How many spaces a tab becomes in [`lines`]. A fixed width (not tab stops) keeps wrapping
/// and width computations independent of the column a line starts at.
const TAB_WIDTH: usize = 4;

/// Zero-width marks (combining accents, variation selectors…) kept on one character. Real text
/// needs a few; "Zalgo" text stacks hundreds, which smear over neighbouring rows in many
/// terminals and bloat every cell they land in. The excess is dropped.
const MAX_MARKS_PER_CHAR: usize = 8;

/// What stands in for the characters [`one_line`] may not pass through.
const REPLACEMENT: char = '\u{FFFD}';

/// True for characters that must never reach the terminal as themselves.
pub fn is_unsafe(c: char) -> bool {
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
        | 0xFE00..=0xFE0F      // variation selectors (VS15/VS16 are let through: see below)
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
        out.push(char::from_u32(0x2400 + u).unwrap_or(REPLACEMENT));
    } else if u == 0x7f {
        out.push('␡');
    } else {
        let _ = write!(out, "⟨U+{u:04X}⟩");
    }
}

fn is_zero_width_mark(c: char) -> bool {
    !c.is_ascii() && c.width() == Some(0)
}

/// Byte offset of the first character that [`line()`] must change, if any.
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
/// never passed through; marks beyond 8 on one character are dropped.
/// Newlines and tabs are made visible too (`␊`, `␉`); use [`lines`] for multi-line text.
///
/// Nothing to change (the common case, on every drawn line) borrows.
pub fn line(s: &str) -> Cow<'_, str> {
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

/// Whether `s` is printable ASCII and `\n` only: [`lines_iter`] then gives back its lines
/// unchanged, so it can be used as it stands. A byte scan (most agent text is ASCII),
/// branch-free over fixed blocks so it vectorizes.
pub fn is_plain_ascii_lines(s: &str) -> bool {
    s.as_bytes().chunks(64).all(|block| {
        block.iter().fold(true, |plain, &b| {
            plain & (((0x20..0x7f).contains(&b)) | (b == b'\n'))
        })
    })
}

/// Multi-line server text: `\n`, `\r\n` and a lone `\r` separate lines, tabs become
/// 4 spaces, and each line is then made safe as in [`line()`].
pub fn lines(s: &str) -> Vec<Cow<'_, str>> {
    lines_iter(s).collect()
}

/// [`lines`] one line at a time, for a writer that needs no list of them.
pub fn lines_iter(s: &str) -> impl Iterator<Item = Cow<'_, str>> {
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
}

/// Server text as one short line for an error message or stderr: whitespace runs (line
/// breaks included) become one space, the characters [`is_unsafe`] names become U+FFFD,
/// marks beyond 8 on one character are dropped, and after `max_chars` characters the
/// rest is cut off with `…`.
pub fn one_line(raw: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(raw.len().min(max_chars * 4));
    let mut last_space = false;
    let mut marks = 0;
    let mut count = 0;
    for ch in raw.chars() {
        let ch = if ch.is_whitespace() {
            ' '
        } else if is_unsafe(ch) {
            REPLACEMENT
        } else {
            ch
        };
        if ch == ' ' {
            if last_space {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        marks = if is_zero_width_mark(ch) { marks + 1 } else { 0 };
        if marks > MAX_MARKS_PER_CHAR {
            continue;
        }
        if count == max_chars {
            out.push('…');
            break;
        }
        out.push(ch);
        count += 1;
    }
    out.trim().to_string()
}

/// [`one_line`] cut to at most `max_cols` terminal cells (a wide character takes two), for
/// a name placed in a column.
pub fn one_line_within(raw: &str, max_cols: usize) -> String {
    // A line of `max_cols` characters is at least that many cells: cutting it by cells
    // only ever cuts more.
    let line = one_line(raw, max_cols);
    match truncate(&line, max_cols) {
        Cow::Borrowed(_) => line,
        Cow::Owned(cut) => cut,
    }
}

/// Display width in terminal cells (East Asian wide characters count 2, combining marks 0),
/// counted the way a terminal buffer places text: grapheme by grapheme. (Summing graphemes
/// rather than taking `UnicodeWidthStr::width` of the whole string matters for cross-grapheme
/// ligatures such as Arabic lam-alef, which would otherwise be one cell short of what is drawn.)
/// A halfwidth katakana sound mark (U+FF9E, U+FF9F) counts one cell more than
/// `unicode-width` says, as the terminal buffer the app draws into counts it: a line laid
/// out by this width then fills exactly the cells that buffer gives it.
pub fn width(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.graphemes(true).map(grapheme_width).sum()
}

/// One grapheme's cells, as [`width`] counts them.
fn grapheme_width(g: &str) -> usize {
    let sound_marks = g
        .chars()
        .filter(|c| matches!(c, '\u{FF9E}' | '\u{FF9F}'))
        .count();
    UnicodeWidthStr::width(g) + sound_marks
}

/// The longest prefix of `s` made of whole grapheme clusters and at most `max_cols` cells
/// wide, with its width.
fn fit(s: &str, max_cols: usize) -> (&str, usize) {
    let mut used = 0;
    for (i, g) in s.grapheme_indices(true) {
        let w = width(g);
        if used + w > max_cols {
            return (&s[..i], used);
        }
        used += w;
    }
    (s, used)
}

/// Cuts `s` to at most `max_cols` cells, ending with `…` when anything was cut; never splits
/// a grapheme cluster. `s` should already be made safe ([`line()`]).
pub fn truncate(s: &str, max_cols: usize) -> Cow<'_, str> {
    if width(s) <= max_cols {
        return Cow::Borrowed(s);
    }
    if max_cols == 0 {
        return Cow::Borrowed("");
    }
    let (kept, _) = fit(s, max_cols - 1); // room for the ellipsis
    Cow::Owned(format!("{kept}…"))
}

/// Splits `s` at grapheme boundaries into pieces of at most `max_cols` cells (at least one
/// grapheme per piece, so a 2-cell character in a 1-cell budget still makes progress).
pub fn split_at_width(s: &str, max_cols: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let (mut piece, _) = fit(rest, max_cols);
        if piece.is_empty() {
            piece = rest.graphemes(true).next().unwrap_or(rest);
        }
        pieces.push(piece);
        rest = &rest[piece.len()..];
    }
    if pieces.is_empty() {
        pieces.push(s);
    }
    pieces
}

/// One thing for [`wrap_words`] to lay out.
#[derive(Debug, Clone, PartialEq)]
pub enum Token<S> {
    /// Consecutive text without a space, in one or more styles (`**bold**,` keeps its comma),
    /// placed `gap` spaces after the word before it; a word that starts a line drops its gap.
    Word {
        /// Spaces between this word and the previous one on the same line.
        gap: usize,
        /// The word's text, piece by piece, each with its style.
        runs: Vec<(String, S)>,
    },
    /// A forced line break.
    Break,
}

/// Greedy word wrapping by display width: each line is at most `max_cols` cells (at least 1)
/// wide and is returned as runs of text with their style (adjacent runs of one style merged;
/// the spaces between words take `S::default()`). A word wider than a line starts a line of
/// its own and is broken between graphemes; a grapheme wider than the whole line shows as
/// `…`. There is always at least one line, possibly empty.
pub fn wrap_words<S: Clone + PartialEq + Default>(
    tokens: impl IntoIterator<Item = Token<S>>,
    max_cols: usize,
) -> Vec<Vec<(String, S)>> {
    let mut lines = Lines::new(max_cols);
    for token in tokens {
        match token {
            Token::Word { gap, runs } => lines.push_word(gap, &runs),
            Token::Break => lines.newline(),
        }
    }
    lines.finish()
}

/// Plain text wrapped to lines of at most `max_cols` cells by the rules of [`wrap_words`]:
/// made safe and split into lines as by [`lines`], then broken between words. Spaces are
/// kept as written (a line's indentation too), except where a line is broken.
pub fn wrap(text: &str, max_cols: usize) -> Vec<String> {
    let mut out = Vec::new();
    for source in lines(text) {
        let lines = wrap_words(plain_words(&source), max_cols);
        out.extend(lines.into_iter().map(|runs| {
            runs.into_iter()
                .fold(String::new(), |mut line, (text, ())| {
                    line.push_str(&text);
                    line
                })
        }));
    }
    out
}

/// The words of one line of plain text. Split on single spaces, a run of `n` spaces leaves
/// `n - 1` empty pieces: before the first word they are its indentation, later they widen
/// the gap (which a line break drops).
fn plain_words(line: &str) -> Vec<Token<()>> {
    let mut words = Vec::new();
    let mut empty = 0;
    for piece in line.split(' ') {
        if piece.is_empty() {
            empty += 1;
            continue;
        }
        let (gap, text) = if words.is_empty() {
            (0, format!("{}{piece}", " ".repeat(empty)))
        } else {
            (empty + 1, piece.to_string())
        };
        words.push(Token::Word {
            gap,
            runs: vec![(text, ())],
        });
        empty = 0;
    }
    words
}

/// Styled text cut into lines of at most `max_cols` cells (at least 1) at any grapheme
/// boundary, without looking for words (code, diffs, prebuilt lines). A grapheme wider than
/// the whole line shows as `…`. Text that fits comes back as one line.
pub fn hard_wrap_runs<S: Clone + PartialEq + Default>(
    runs: Vec<(String, S)>,
    max_cols: usize,
) -> Vec<Vec<(String, S)>> {
    let mut lines = Lines::new(max_cols);
    lines.push_broken(&runs);
    lines.finish()
}

/// Styled text cut to at most `max_cols` cells, ending with `…` (in `S::default()`) when
/// anything was cut; never splits a grapheme cluster.
pub fn truncate_runs<S: Default>(runs: Vec<(String, S)>, max_cols: usize) -> Vec<(String, S)> {
    if runs.iter().map(|(text, _)| width(text)).sum::<usize>() <= max_cols {
        return runs;
    }
    if max_cols == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut left = max_cols - 1; // room for the ellipsis
    for (text, style) in runs {
        let (kept, used) = fit(&text, left);
        let whole = kept.len() == text.len();
        if whole {
            out.push((text, style));
        } else {
            if !kept.is_empty() {
                out.push((kept.to_string(), style));
            }
            break;
        }
        left -= used;
    }
    out.push(("…".to_string(), S::default()));
    out
}

/// Lines being filled, shared by every wrapping rule above.
struct Lines<S> {
    max_cols: usize,
    done: Vec<Vec<(String, S)>>,
    current: Vec<(String, S)>,
    used: usize,
}

impl<S: Clone + PartialEq + Default> Lines<S> {
    fn new(max_cols: usize) -> Self {
        Lines {
            max_cols: max_cols.max(1),
            done: Vec::new(),
            current: Vec::new(),
            used: 0,
        }
    }

    fn push(&mut self, text: &str, style: &S, cols: usize) {
        match self.current.last_mut() {
            Some((last, last_style)) if last_style == style => last.push_str(text),
            _ => self.current.push((text.to_string(), style.clone())),
        }
        self.used += cols;
    }

    fn newline(&mut self) {
        self.done.push(std::mem::take(&mut self.current));
        self.used = 0;
    }

    fn push_word(&mut self, gap: usize, runs: &[(String, S)]) {
        let cols: usize = runs.iter().map(|(text, _)| width(text)).sum();
        if self.used > 0 {
            if self.used + gap + cols <= self.max_cols {
                self.push(&" ".repeat(gap), &S::default(), gap);
            } else {
                self.newline();
            }
        }
        if cols <= self.max_cols {
            for (text, style) in runs {
                self.push(text, style, width(text));
            }
        } else {
            self.push_broken(runs);
        }
    }

    /// Text placed grapheme by grapheme, starting a new line wherever the next one does not fit.
    fn push_broken(&mut self, runs: &[(String, S)]) {
        for (text, style) in runs {
            for g in text.graphemes(true) {
                let (g, cols) = match width(g) {
                    // A wide character in a line narrower than it: show that something is there.
                    cols if cols > self.max_cols => ("…", 1),
                    cols => (g, cols),
                };
                if self.used + cols > self.max_cols && self.used > 0 {
                    self.newline();
                }
                self.push(g, style, cols);
            }
        }
    }

    fn finish(mut self) -> Vec<Vec<(String, S)>> {
        if !self.current.is_empty() || self.done.is_empty() {
            self.newline();
        }
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
    fn sanitize_removes_escape_sequences_and_caps_length() {
        let s = one_line("a\x1b[31mred\x07\n\n b\u{202E}", 100);
        assert!(!s.contains('\x1b') && !s.contains('\x07') && !s.contains('\u{202E}'));
        assert!(s.starts_with("a\u{FFFD}[31mred\u{FFFD} b"));
        assert_eq!(
            one_line(&"x".repeat(50), 10),
            format!("{}…", "x".repeat(10))
        );
    }

    /// Error text is cleaned by the same classification as what the screen draws.
    #[test]
    fn one_line_within_counts_cells_not_characters() {
        assert_eq!(one_line_within("report.md", 20), "report.md");
        let wide = one_line_within("数据分析结果报告", 9);
        assert!(width(&wide) <= 9 && wide.ends_with('…'), "{wide}");
        let emoji = one_line_within(&"🚀".repeat(10), 7);
        assert!(width(&emoji) <= 7, "{emoji}");
        assert_eq!(width(&one_line_within("a\nb\u{1b}c", 10)), 5);
    }

    #[test]
    fn one_line_replaces_every_character_line_makes_visible() {
        let hostile = "a\u{9b}b\u{2028}c\u{00AD}d\u{E0041}e\u{FDD0}f";
        let out = one_line(hostile, 100);
        assert_eq!(out, "a\u{FFFD}b c\u{FFFD}d\u{FFFD}e\u{FFFD}f");
        let zalgo = format!("a{}b", "\u{301}".repeat(100));
        assert_eq!(
            one_line(&zalgo, 100),
            format!("a{}b", "\u{301}".repeat(MAX_MARKS_PER_CHAR))
        );
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

    #[test]
    fn wrap_plain_splits_words_and_long_tokens() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap("a\nb", 10), vec!["a", "b"]);
    }

    #[test]
    fn wrap_keeps_spacing_and_indentation_but_not_at_a_break() {
        assert_eq!(wrap("  fn main() {}", 20), vec!["  fn main() {}"]);
        assert_eq!(wrap("a  b", 10), vec!["a  b"]);
        assert_eq!(wrap("end.  Next", 6), vec!["end.", "Next"]);
        assert_eq!(wrap("", 4), vec![""]);
        assert_eq!(wrap("a\n\nb", 4), vec!["a", "", "b"]);
    }

    #[test]
    fn wrap_never_splits_a_grapheme_or_overflows_the_line() {
        let thumb = "👍\u{1F3FD}"; // an emoji with a skin-tone modifier: one grapheme
        let wrapped = wrap(&format!("ab{thumb}cd"), 3);
        assert!(wrapped.iter().any(|l| l.contains(thumb)), "{wrapped:?}");
        assert!(wrapped.iter().all(|l| width(l) <= 3), "{wrapped:?}");
        assert_eq!(wrapped.concat(), format!("ab{thumb}cd"));
        assert_eq!(
            wrap("e\u{301}e\u{301}e\u{301}", 2),
            vec!["e\u{301}e\u{301}", "e\u{301}"]
        );
        // A wide character in a one-cell line shows that something is there.
        assert_eq!(wrap("世", 1), vec!["…"]);
    }

    /// Styles in these tests are numbers; 0 is the default (the spaces between words).
    fn plain(text: &str) -> Token<u8> {
        Token::Word {
            gap: 1,
            runs: vec![(text.to_string(), 0)],
        }
    }

    fn texts<S>(lines: &[Vec<(String, S)>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn wraps_at_word_boundaries() {
        let out = wrap_words("the quick brown fox jumps".split(' ').map(plain), 10);
        assert_eq!(texts(&out), vec!["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn hard_wraps_long_words() {
        let out = wrap_words(["abcdefghij", "klm"].map(plain), 4);
        assert_eq!(texts(&out), vec!["abcd", "efgh", "ij", "klm"]);
    }

    #[test]
    fn wraps_by_display_width() {
        let out = wrap_words(["世界", "世界", "世界"].map(plain), 9);
        assert_eq!(texts(&out), vec!["世界 世界", "世界"]);
    }

    #[test]
    fn styled_word_keeps_its_punctuation_and_runs_merge_by_style() {
        let word = Token::Word {
            gap: 1,
            runs: vec![("bb".to_string(), 1), (",".to_string(), 0)],
        };
        let out = wrap_words([plain("aaaa"), word, plain("cc")], 7);
        assert_eq!(texts(&out), vec!["aaaa", "bb, cc"]);
        assert_eq!(out[1], vec![("bb".to_string(), 1), (", cc".to_string(), 0)]);
    }

    #[test]
    fn hard_break_starts_a_new_line() {
        let out = wrap_words([plain("a"), Token::Break, plain("b")], 10);
        assert_eq!(texts(&out), vec!["a", "b"]);
        assert_eq!(texts(&wrap_words::<u8>([], 10)), vec![""]);
    }

    #[test]
    fn hard_wrap_and_truncate_runs_keep_styles_and_respect_width() {
        let runs = vec![("héllo ".to_string(), 1u8), ("world".to_string(), 2)];
        let cut = truncate_runs(runs.clone(), 6);
        assert_eq!(cut, vec![("héllo".to_string(), 1), ("…".to_string(), 0)]);
        assert_eq!(truncate_runs(runs.clone(), 11), runs);
        assert!(truncate_runs(runs.clone(), 0).is_empty());
        let wrapped = hard_wrap_runs(runs, 4);
        assert_eq!(texts(&wrapped), vec!["héll", "o wo", "rld"]);
        assert_eq!(
            wrapped[1],
            vec![("o ".to_string(), 1), ("wo".to_string(), 2)]
        );
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
                '世', 'é', '\u{301}', '👍', '[', ']', ';', ' '
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
            prop_assert!(!one_line(&s, 100).chars().any(forbidden));
        }

        #[test]
        fn truncate_fits(chars in prop::collection::vec(hostile_char(), 0..64), max in 0usize..40) {
            let s: String = chars.into_iter().collect();
            let safe = line(&s);
            prop_assert!(width(&truncate(&safe, max)) <= max);
        }

        #[test]
        fn wrapped_lines_fit_and_keep_every_word(
            chars in prop::collection::vec(hostile_char(), 0..64),
            max in 1usize..20,
        ) {
            let s: String = chars.into_iter().collect();
            let wrapped = wrap(&s, max);
            prop_assert!(wrapped.iter().all(|l| width(l) <= max), "{:?}", wrapped);
            // Only spaces (at breaks) and over-wide graphemes (as `…`) may go missing.
            let kept: String = wrapped.concat().chars().filter(|&c| c != ' ' && c != '…').collect();
            let safe: String = lines(&s).concat().chars().filter(|&c| c != ' ').collect();
            if max >= 2 {
                prop_assert_eq!(kept, safe);
            }
        }
    }
}
