//! Server text → text that is safe to put in a terminal cell.
//!
//! INTERFACE CONTRACT (a fuller implementation is being written; keep these signatures).

use std::borrow::Cow;

/// One line of server text, safe to display: control characters, escape sequences, bidi
/// overrides and zero-width characters are made visible (e.g. `␛`, `\u{202e}` as `<U+202E>`)
/// or stripped, never passed through. Newlines and tabs are made visible too.
pub fn line(s: &str) -> Cow<'_, str> {
    if s.chars().all(|c| !c.is_control()) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(
            s.chars()
                .map(|c| if c.is_control() { '�' } else { c })
                .collect(),
        )
    }
}

/// Multi-line server text: like [`line`], but `\n` separates lines and tabs become spaces.
pub fn lines(s: &str) -> Vec<Cow<'_, str>> {
    s.split('\n').map(line).collect()
}
