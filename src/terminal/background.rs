//! Asking the terminal the colour of its background (OSC 11), for the `auto` theme.
//!
//! The question is followed by a request for the terminal's attributes (DA1), which every
//! terminal answers, and answers in order: once that answer is in, an OSC 11 answer either
//! came before it or is not coming, so a terminal that does not know OSC 11 costs one round
//! trip, not the whole timeout. Both answers are read here, before the app's input reader
//! starts, so neither reaches the input box as keys; one that comes after the wait is taken
//! out of the keys by [`super::late_answers`].

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// How long the answer is waited for at most (a terminal over a slow link may take longer;
/// the theme is then dark, as when nothing answers).
pub(crate) const TIMEOUT: Duration = Duration::from_millis(100);

/// Writes the question (the terminal in raw mode); [`answer_is_light`] reads the answer,
/// on any thread, while nothing else reads the terminal.
pub(crate) fn ask() -> io::Result<()> {
    let mut out = io::stdout();
    out.write_all(b"\x1b]11;?\x1b\\\x1b[c")?;
    out.flush()
}

/// The answer to [`ask`]: whether the background is light; `None` when the terminal does
/// not say within `timeout`.
pub(crate) fn answer_is_light(timeout: Duration) -> Option<bool> {
    background_is_light(&read_answers(timeout))
}

/// Reads what the terminal answers until its DA1 answer or `timeout`.
fn read_answers(timeout: Duration) -> Vec<u8> {
    let fd = io::stdin().as_raw_fd();
    let deadline = Instant::now() + timeout;
    let mut read = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd, its count 1.
        if unsafe { libc::poll(&mut poll, 1, ms) } <= 0 {
            break;
        }
        let mut chunk = [0u8; 512];
        // SAFETY: reads at most the chunk's length into it.
        let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
        let Ok(n @ 1..) = usize::try_from(n) else {
            break;
        };
        read.extend_from_slice(&chunk[..n]);
        if has_attributes_answer(&read) || read.len() > 4096 {
            break;
        }
    }
    read
}

/// `ESC [ ? … c`: the DA1 answer.
fn has_attributes_answer(read: &[u8]) -> bool {
    read.windows(3).enumerate().any(|(i, w)| {
        w == b"\x1b[?"
            && read[i + 3..]
                .iter()
                .find(|b| !(b.is_ascii_digit() || **b == b';'))
                == Some(&b'c')
    })
}

/// From `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` (BEL or ST after it; 1–4 hex digits a channel):
/// whether that colour is light (relative luminance above a half).
fn background_is_light(read: &[u8]) -> Option<bool> {
    let text = String::from_utf8_lossy(read);
    let at = text.find("\x1b]11;rgb:")?;
    let rest = &text[at + "\x1b]11;rgb:".len()..];
    let end = rest.find(['\x07', '\x1b'])?;
    let channels: Vec<f64> = rest[..end]
        .split('/')
        .map(|c| {
            let max = 16f64.powi(i32::try_from(c.len()).ok()?) - 1.0;
            let v = u32::from_str_radix(c, 16).ok()?;
            (!c.is_empty() && c.len() <= 4).then(|| f64::from(v) / max)
        })
        .collect::<Option<_>>()?;
    let [r, g, b] = channels[..] else {
        return None;
    };
    let linear = |c: f64| {
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    Some(luminance > 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_white_or_cream_background_is_light_and_black_or_solarized_dark_is_not() {
        assert_eq!(
            background_is_light(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;c"),
            Some(true)
        );
        assert_eq!(
            background_is_light(b"\x1b]11;rgb:fdfd/f6f6/e3e3\x07"),
            Some(true)
        );
        assert_eq!(
            background_is_light(b"\x1b]11;rgb:00/2b/36\x07"),
            Some(false)
        );
        assert_eq!(background_is_light(b"\x1b]11;rgb:0/0/0\x1b\\"), Some(false));
    }

    #[test]
    fn no_answer_or_a_garbled_one_says_nothing() {
        assert_eq!(background_is_light(b"\x1b[?62;22c"), None);
        assert_eq!(background_is_light(b"\x1b]11;rgb:zz/00/00\x07"), None);
        assert_eq!(background_is_light(b"\x1b]11;rgb:ff/ff\x07"), None);
        assert_eq!(background_is_light(b"\x1b]11;rgb:ffff/ffff/ffff"), None);
    }

    #[test]
    fn the_attributes_answer_ends_the_wait() {
        assert!(has_attributes_answer(b"\x1b]11;rgb:0/0/0\x07\x1b[?62;22c"));
        assert!(has_attributes_answer(b"\x1b[?1;2c"));
        assert!(!has_attributes_answer(b"\x1b[?1;2"));
        assert!(!has_attributes_answer(b"\x1b]11;rgb:0/0/0\x07"));
    }
}
