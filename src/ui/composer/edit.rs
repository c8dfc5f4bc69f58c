//! The box's editing keys, as readline has them: each key names an [`EditOp`]
//! ([`edit_op_for`]) and [`apply`] carries it out on the textarea. Every key is mapped here
//! rather than left to `ratatui-textarea`'s own defaults, whose Ctrl and Alt chords (Ctrl+U
//! undo, Ctrl+R redo, Ctrl+X cut, Ctrl+C copy…) would take keys that mean something else
//! to a readline user or to the app.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{CursorMove, DataCursor, TextArea};

/// One edit of the draft at the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EditOp {
    /// A typed character.
    Insert(char),
    /// Shift/Alt/Ctrl+Enter, Ctrl+J: a line break in the draft.
    Newline,
    /// ← / Ctrl+B.
    CharBack,
    /// → / Ctrl+F.
    CharForward,
    /// ↑ / Ctrl+P within the draft (on its first line the box asks for history instead).
    LineUp,
    /// ↓ / Ctrl+N within the draft (on its last line: history).
    LineDown,
    /// Alt+B / Ctrl+←: to the start of this or the previous word.
    WordBack,
    /// Alt+F / Ctrl+→: to the end of this or the next word.
    WordForward,
    /// Ctrl+A / Home.
    LineStart,
    /// Ctrl+E / End.
    LineEnd,
    /// Alt+< / Ctrl+Home: the draft's first character.
    TextStart,
    /// Alt+> / Ctrl+End: the draft's last character.
    TextEnd,
    /// Backspace / Ctrl+H.
    DeleteBack,
    /// Delete / Ctrl+D.
    DeleteForward,
    /// Ctrl+K: from the cursor to the end of the line (at its end: the line break).
    KillToLineEnd,
    /// Ctrl+U: from the start of the line to the cursor (at its start: the line break).
    KillToLineStart,
    /// Ctrl+W: back to the previous whitespace, as readline's `unix-word-rubout`.
    KillBigWordBack,
    /// Alt+Backspace / Ctrl+Backspace: back to the start of the word.
    KillWordBack,
    /// Alt+D / Alt+Delete / Ctrl+Delete: to the end of the word.
    KillWordForward,
    /// Ctrl+Y: the text the last kill took, put back at the cursor.
    Yank,
    /// Ctrl+_ (also sent as Ctrl+7 or Ctrl+/).
    Undo,
    /// Alt+_ / Ctrl+Alt+_: what the last undo took back.
    Redo,
}

/// The edit `key` asks for; `None` when it is not an editing key (the app's keys, and
/// chords that mean nothing here, which are then not swallowed).
pub(crate) fn edit_op_for(key: KeyEvent) -> Option<EditOp> {
    let m = key.modifiers;
    let ctrl = m.contains(KeyModifiers::CONTROL);
    let alt = m.contains(KeyModifiers::ALT);
    let plain = !ctrl && !alt;
    let op = match key.code {
        // Plain Enter sends (the box's action, not an edit).
        KeyCode::Enter if !m.is_empty() => EditOp::Newline,
        KeyCode::Char(c) if plain => EditOp::Insert(c),
        KeyCode::Left if plain => EditOp::CharBack,
        KeyCode::Right if plain => EditOp::CharForward,
        KeyCode::Up if plain => EditOp::LineUp,
        KeyCode::Down if plain => EditOp::LineDown,
        KeyCode::Home if ctrl => EditOp::TextStart,
        KeyCode::End if ctrl => EditOp::TextEnd,
        KeyCode::Home => EditOp::LineStart,
        KeyCode::End => EditOp::LineEnd,
        KeyCode::Left if ctrl || alt => EditOp::WordBack,
        KeyCode::Right if ctrl || alt => EditOp::WordForward,
        KeyCode::Backspace if plain => EditOp::DeleteBack,
        KeyCode::Backspace => EditOp::KillWordBack,
        KeyCode::Delete if plain => EditOp::DeleteForward,
        KeyCode::Delete => EditOp::KillWordForward,
        // Ctrl+Alt chords: redo only (Ctrl+Alt+_ is Emacs's `undo-redo`).
        KeyCode::Char('_' | '7' | '/' | '-') if ctrl && alt => EditOp::Redo,
        KeyCode::Char(_) if ctrl && alt => return None,
        KeyCode::Char(c) if ctrl => match c {
            // A line feed: what terminals without key disambiguation send for
            // Shift+Enter-like bindings.
            'j' => EditOp::Newline,
            'a' => EditOp::LineStart,
            'e' => EditOp::LineEnd,
            'b' => EditOp::CharBack,
            'f' => EditOp::CharForward,
            'p' => EditOp::LineUp,
            'n' => EditOp::LineDown,
            'h' => EditOp::DeleteBack,
            'd' => EditOp::DeleteForward,
            'k' => EditOp::KillToLineEnd,
            'u' => EditOp::KillToLineStart,
            'w' => EditOp::KillBigWordBack,
            'y' => EditOp::Yank,
            // 0x1F: Ctrl+_ on most keyboards, which crossterm reads as Ctrl+7; Ctrl+/
            // sends it too; with key disambiguation it comes as itself (or Ctrl+Shift+-).
            '_' | '7' | '/' | '-' => EditOp::Undo,
            _ => return None,
        },
        KeyCode::Char(c) if alt => match c {
            'b' => EditOp::WordBack,
            'f' => EditOp::WordForward,
            'd' => EditOp::KillWordForward,
            '<' => EditOp::TextStart,
            '>' => EditOp::TextEnd,
            '_' => EditOp::Redo,
            _ => return None,
        },
        _ => return None,
    };
    Some(op)
}

/// Carries out `op` on `t` (the draft's first and last lines are the caller's: the text
/// jumps are not done here).
pub(super) fn apply(t: &mut TextArea<'_>, op: EditOp) {
    // An edit replaces any selection by moving from it (the box has no selecting keys).
    t.cancel_selection();
    match op {
        EditOp::Insert(c) => t.insert_char(c),
        EditOp::Newline => t.insert_newline(),
        EditOp::CharBack => t.move_cursor(CursorMove::Back),
        EditOp::CharForward => t.move_cursor(CursorMove::Forward),
        EditOp::LineUp => t.move_cursor(CursorMove::Up),
        EditOp::LineDown => t.move_cursor(CursorMove::Down),
        EditOp::LineStart => t.move_cursor(CursorMove::Head),
        EditOp::LineEnd => t.move_cursor(CursorMove::End),
        // The window's to move (the text may reach past the textarea).
        EditOp::TextStart | EditOp::TextEnd => {}
        EditOp::WordBack => {
            let (row, col) = word_back_from(t);
            jump(t, row, col);
        }
        EditOp::WordForward => {
            let (row, col) = word_forward_from(t);
            jump(t, row, col);
        }
        EditOp::DeleteBack => {
            t.delete_char();
        }
        EditOp::DeleteForward => {
            t.delete_next_char();
        }
        EditOp::KillToLineEnd => {
            t.delete_line_by_end();
        }
        EditOp::KillToLineStart => {
            t.delete_line_by_head();
        }
        EditOp::KillBigWordBack => {
            kill_back_to(t, |line, col| start_back(line, col, |c| !c.is_whitespace()))
        }
        EditOp::KillWordBack => kill_back_to(t, |line, col| start_back(line, col, is_word)),
        EditOp::KillWordForward => {
            let DataCursor(row, col) = t.cursor();
            let line: Vec<char> = t.lines()[row].chars().collect();
            if col >= line.len() {
                // At the line's end: the line break goes, as readline's kill-word would.
                t.delete_next_char();
            } else {
                let end = end_forward(&line, col, is_word);
                t.delete_str(end - col);
            }
        }
        EditOp::Yank => {
            t.paste();
        }
        EditOp::Undo => {
            t.undo();
        }
        EditOp::Redo => {
            t.redo();
        }
    }
}

/// Word characters for Alt+B/F/D and Alt+Backspace: letters, digits and `_`, as readline.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Deletes from the column `start_of(line, cursor column)` to the cursor; at the line's
/// start, the line break before it (joining the lines, as readline joins nothing but a
/// multi-line box should).
fn kill_back_to(t: &mut TextArea<'_>, start_of: impl Fn(&[char], usize) -> usize) {
    let DataCursor(row, col) = t.cursor();
    if col == 0 {
        t.delete_char();
        return;
    }
    let line: Vec<char> = t.lines()[row].chars().collect();
    let start = start_of(&line, col);
    jump(t, row, start);
    t.delete_str(col - start);
}

/// Back from `col` past what is not a word, then past the word: where it starts.
fn start_back(line: &[char], col: usize, word: impl Fn(char) -> bool) -> usize {
    let mut i = col.min(line.len());
    while i > 0 && !word(line[i - 1]) {
        i -= 1;
    }
    while i > 0 && word(line[i - 1]) {
        i -= 1;
    }
    i
}

/// Forward from `col` past what is not a word, then past the word: where it ends.
fn end_forward(line: &[char], col: usize, word: impl Fn(char) -> bool) -> usize {
    let mut i = col.min(line.len());
    while i < line.len() && !word(line[i]) {
        i += 1;
    }
    while i < line.len() && word(line[i]) {
        i += 1;
    }
    i
}

/// Where Alt+B goes: the start of the word before the cursor, looking into the lines above
/// when the rest of this one has none.
fn word_back_from(t: &TextArea<'_>) -> (usize, usize) {
    let DataCursor(mut row, mut col) = t.cursor();
    loop {
        let line: Vec<char> = t.lines()[row].chars().collect();
        let start = start_back(&line, col, is_word);
        if start < col && line[start..col].iter().any(|&c| is_word(c)) || row == 0 {
            return (row, start);
        }
        row -= 1;
        col = t.lines()[row].chars().count();
    }
}

/// Where Alt+F goes: the end of the word after the cursor, looking into the lines below
/// when the rest of this one has none.
fn word_forward_from(t: &TextArea<'_>) -> (usize, usize) {
    let DataCursor(mut row, mut col) = t.cursor();
    let last = t.lines().len() - 1;
    loop {
        let line: Vec<char> = t.lines()[row].chars().collect();
        let end = end_forward(&line, col, is_word);
        if line[col.min(end)..end].iter().any(|&c| is_word(c)) || row == last {
            return (row, end);
        }
        row += 1;
        col = 0;
    }
}

fn jump(t: &mut TextArea<'_>, row: usize, col: usize) {
    let row = u16::try_from(row).unwrap_or(u16::MAX);
    let col = u16::try_from(col).unwrap_or(u16::MAX);
    t.move_cursor(CursorMove::Jump(row, col));
}
