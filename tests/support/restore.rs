//! "The terminal was given back": every mode `gobare_tui::terminal::enter` turns on is turned
//! off again, checked on the bytes the program wrote, on the emulated screen and on the pty's
//! line discipline.

use gobare_test_support::pty::Pty;

/// What `terminal::enter` writes, each with the sequence that undoes it.
const MODES: [(&str, &str, &str); 5] = [
    ("alternate screen", "\x1b[?1049h", "\x1b[?1049l"),
    ("hidden cursor", "\x1b[?25l", "\x1b[?25h"),
    ("bracketed paste", "\x1b[?2004h", "\x1b[?2004l"),
    ("focus reports", "\x1b[?1004h", "\x1b[?1004l"),
    ("keyboard enhancement", "\x1b[>1u", "\x1b[<1u"),
];

/// What mouse capture writes (crossterm's `EnableMouseCapture`, every tracking mode).
const MOUSE_MODES: [(&str, &str, &str); 5] = [
    ("mouse press/release", "\x1b[?1000h", "\x1b[?1000l"),
    ("mouse drag", "\x1b[?1002h", "\x1b[?1002l"),
    ("mouse motion", "\x1b[?1003h", "\x1b[?1003l"),
    ("rxvt mouse coordinates", "\x1b[?1015h", "\x1b[?1015l"),
    ("SGR mouse coordinates", "\x1b[?1006h", "\x1b[?1006l"),
];

/// Where `needle` last occurs in `haystack`.
pub(crate) fn last(haystack: &[u8], needle: &str) -> Option<usize> {
    let needle = needle.as_bytes();
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

/// Raw mode off, main screen, cursor shown, paste, focus, keyboard and (if it was ever on)
/// mouse modes off: each mode's "off" comes after its last "on" in the byte stream, the
/// emulated screen agrees, and the pty is back in cooked mode.
pub(crate) fn assert_restored(pty: &Pty, mouse_was_on: bool) {
    let raw = pty.raw_bytes();
    let mouse: &[_] = if mouse_was_on { &MOUSE_MODES } else { &[] };
    for (what, on, off) in MODES.iter().chain(mouse) {
        let on_at = last(&raw, on).unwrap_or_else(|| panic!("{what}: {on:?} never sent"));
        let off_at = last(&raw, off).unwrap_or_else(|| panic!("{what}: {off:?} never sent"));
        assert!(
            off_at > on_at,
            "{what} left on: {off:?} must follow the last {on:?}"
        );
    }
    pty.with_screen(|s| {
        assert!(!s.alternate_screen(), "still on the alternate screen");
        assert!(!s.hide_cursor(), "cursor still hidden");
        assert!(!s.bracketed_paste(), "bracketed paste still on");
        assert_eq!(s.mouse_protocol_mode(), vt100::MouseProtocolMode::None);
        assert_eq!(
            s.mouse_protocol_encoding(),
            vt100::MouseProtocolEncoding::Default
        );
    });
    assert!(pty.is_cooked(), "raw mode still on");
}
