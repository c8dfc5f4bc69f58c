//! The input box's text as a window of lines inside the `ratatui-textarea`, with the lines
//! above and below it kept aside: the textarea re-wraps all its lines on every edit, so a
//! 5 MB paste would cost every keystroke tens of milliseconds; here an edit costs the window.
//!
//! The window follows the cursor: before each key, a cursor within [`MARGIN`] lines of an
//! edge with text beyond it re-centres the window (lines move between the window and the
//! sides, the textarea is rebuilt around them). A draft that fits in the window never moves,
//! so the textarea's undo and selection behave as they always did; a larger one keeps them
//! within the window since the last move.

use ratatui_textarea::{CursorMove, TextArea};

/// Lines the textarea holds after a re-centre.
const WINDOW: usize = 256;
/// How close to a window edge the cursor may come before the window moves; more than any
/// key moves the cursor in one go (a page is the box's height).
const MARGIN: usize = 32;

/// Builds the textarea for a window of lines (the composer's settings, cursor anywhere).
pub(super) type BuildTextArea = fn(Vec<String>) -> TextArea<'static>;

pub(super) struct WindowedText {
    textarea: TextArea<'static>,
    /// Lines before the window, in order.
    above: Vec<String>,
    /// Lines after the window, the nearest last.
    below: Vec<String>,
    build: BuildTextArea,
}

impl WindowedText {
    /// `lines` (at least one), the cursor at the end of the last.
    pub(super) fn new(mut lines: Vec<String>, build: BuildTextArea) -> WindowedText {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let above = lines.len().saturating_sub(WINDOW);
        let window = lines.split_off(above);
        let mut textarea = build(window);
        textarea.move_cursor(CursorMove::Bottom);
        textarea.move_cursor(CursorMove::End);
        WindowedText {
            textarea,
            above: lines,
            below: Vec::new(),
            build,
        }
    }

    pub(super) fn textarea_mut(&mut self) -> &mut TextArea<'static> {
        &mut self.textarea
    }

    /// Every line, in order.
    pub(super) fn lines(&self) -> impl Iterator<Item = &String> {
        self.above
            .iter()
            .chain(self.textarea.lines())
            .chain(self.below.iter().rev())
    }

    /// The text, lines joined with `\n`.
    pub(super) fn text(&self) -> String {
        let mut text = String::with_capacity(self.lines().map(|l| l.len() + 1).sum());
        for (i, line) in self.lines().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(line);
        }
        text
    }

    /// The cursor: (line in the whole text, column in chars).
    pub(super) fn cursor(&self) -> (usize, usize) {
        let ratatui_textarea::DataCursor(row, col) = self.textarea.cursor();
        (self.above.len() + row, col)
    }

    /// The line the cursor is on.
    pub(super) fn cursor_line(&self) -> &str {
        let row = self.textarea.cursor().0;
        self.textarea.lines().get(row).map_or("", String::as_str)
    }

    /// How many lines the text has.
    pub(super) fn len(&self) -> usize {
        self.line_count()
    }

    /// The cursor is on the first line of the text.
    pub(super) fn at_first_line(&self) -> bool {
        self.above.is_empty() && self.textarea.cursor().0 == 0
    }

    /// The cursor is on the last line of the text.
    pub(super) fn at_last_line(&self) -> bool {
        self.below.is_empty() && self.textarea.cursor().0 + 1 >= self.textarea.lines().len()
    }

    /// An edit of the textarea, the window moved first if the cursor nears its edge.
    pub(super) fn edit(&mut self, f: impl FnOnce(&mut TextArea<'static>)) {
        self.keep_margin();
        f(&mut self.textarea);
    }

    /// The cursor to the text's first character.
    pub(super) fn cursor_to_top(&mut self) {
        if self.above.is_empty() {
            // Within the window: no rebuild, so undo keeps its history.
            self.textarea.move_cursor(CursorMove::Top);
            self.textarea.move_cursor(CursorMove::Head);
        } else {
            self.recentre_at(0, 0);
        }
    }

    /// The cursor to the text's last character.
    pub(super) fn cursor_to_bottom(&mut self) {
        if self.below.is_empty() {
            self.textarea.move_cursor(CursorMove::Bottom);
        } else {
            self.recentre_at(self.line_count() - 1, 0);
        }
        self.textarea.move_cursor(CursorMove::End);
    }

    /// Inserts `text` at the cursor; a long text leaves the window around the cursor.
    pub(super) fn insert_str(&mut self, text: String) {
        self.textarea.insert_str(text);
        self.keep_margin();
    }

    fn line_count(&self) -> usize {
        self.above.len() + self.textarea.lines().len() + self.below.len()
    }

    fn keep_margin(&mut self) {
        let row = self.textarea.cursor().0;
        let len = self.textarea.lines().len();
        let near_top = row < MARGIN && !self.above.is_empty();
        let near_bottom = row + MARGIN >= len && !self.below.is_empty();
        if near_top || near_bottom || len > 2 * WINDOW {
            let ratatui_textarea::DataCursor(row, col) = self.textarea.cursor();
            self.recentre_at(self.above.len() + row, col);
        }
    }

    /// Rebuilds the window around line `at` of the text (cursor there, column `col`).
    fn recentre_at(&mut self, at: usize, col: usize) {
        let total = self.line_count();
        let at = at.min(total - 1);
        let end = (at.saturating_sub(WINDOW / 2) + WINDOW).min(total);
        let start = end.saturating_sub(WINDOW).min(at);
        // The window's lines go below, then the edge between above and below moves to
        // `start`, then the new window comes off below: one move per line passed.
        let mut lines = std::mem::take(&mut self.textarea).into_lines();
        self.below.extend(lines.drain(..).rev());
        while self.above.len() > start {
            self.below.extend(self.above.pop());
        }
        while self.above.len() < start {
            self.above.extend(self.below.pop());
        }
        while lines.len() < end - start {
            lines.extend(self.below.pop());
        }
        let mut textarea = (self.build)(lines);
        let row = u16::try_from(at - start).unwrap_or(u16::MAX);
        // A line longer than 65,535 characters puts the cursor at that column at most.
        let col = u16::try_from(col).unwrap_or(u16::MAX);
        textarea.move_cursor(CursorMove::Jump(row, col));
        self.textarea = textarea;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(lines: Vec<String>) -> TextArea<'static> {
        TextArea::new(lines)
    }

    fn numbered(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("line {i}")).collect()
    }

    fn up(w: &mut WindowedText) {
        w.edit(|t| t.move_cursor(CursorMove::Up));
    }

    fn down(w: &mut WindowedText) {
        w.edit(|t| t.move_cursor(CursorMove::Down));
    }

    fn insert(w: &mut WindowedText, c: char) {
        w.edit(|t| t.insert_char(c));
    }

    fn home(w: &mut WindowedText) {
        w.edit(|t| t.move_cursor(CursorMove::Head));
    }

    /// The line the cursor is on, counted in the whole text.
    fn cursor_line(w: &WindowedText) -> usize {
        w.above.len() + w.textarea.cursor().0
    }

    #[test]
    fn a_long_text_keeps_only_a_window_in_the_textarea_and_gives_all_of_it_back() {
        let lines = numbered(10_000);
        let w = WindowedText::new(lines.clone(), build);
        assert_eq!(w.textarea.lines().len(), WINDOW);
        assert_eq!(w.text(), lines.join("\n"));
        assert!(w.at_last_line());
        assert!(!w.at_first_line());
    }

    #[test]
    fn walking_the_cursor_through_the_whole_text_edits_where_it_is() {
        let mut w = WindowedText::new(numbered(2_000), build);
        for _ in 0..1_999 {
            up(&mut w);
        }
        assert!(w.at_first_line());
        assert!(w.textarea.lines().len() <= 2 * WINDOW);
        home(&mut w);
        insert(&mut w, '>');
        for _ in 0..1_000 {
            down(&mut w);
        }
        assert_eq!(cursor_line(&w), 1_000);
        home(&mut w);
        // Backspace at a line's start joins it to the one above, across any window edge.
        w.edit(|t| {
            t.delete_char();
        });
        let mut expected = numbered(2_000);
        expected[0].insert(0, '>');
        let joined = format!("{}{}", expected[999], expected[1_000]);
        expected.splice(999..=1_000, [joined]);
        assert_eq!(w.text(), expected.join("\n"));
    }

    #[test]
    fn jumps_to_the_top_and_bottom_reach_the_text_s_ends() {
        let mut w = WindowedText::new(numbered(5_000), build);
        w.cursor_to_top();
        assert!(w.at_first_line());
        w.cursor_to_bottom();
        assert!(w.at_last_line());
        assert_eq!(w.textarea.cursor().1, "line 4999".len());
        assert_eq!(cursor_line(&w), 4_999);
    }

    #[test]
    fn a_paste_of_many_lines_leaves_a_window_around_the_cursor() {
        let mut w = WindowedText::new(vec![String::from("before ")], build);
        let pasted = numbered(50_000).join("\n");
        w.insert_str(pasted.clone());
        assert!(w.textarea.lines().len() <= 2 * WINDOW);
        assert_eq!(w.text(), format!("before {pasted}"));
        insert(&mut w, '!');
        assert!(w.text().ends_with("line 49999!"));
    }
}
