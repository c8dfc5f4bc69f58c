//! Credential redaction for text copied out of the app (the exports, the inspector, the
//! clipboard).
//!
//! Tool output carries credentials the agent saw. Each format of [`FORMATS`] is replaced
//! by [`REDACTED`], keeping what says which kind it was (a token's prefix, a URL's user, a
//! header's name, a PEM block's armour lines). Text is read as it stands or as JSON text: a
//! secret right after a JSON escape (`\n`, `\t`, `\u001b`) starts a word as it does after
//! the character the escape stands for. Text holding none of the formats' anchors (most
//! text: [`anchors`]) is passed after one vectorized search; other text takes one pass over
//! the bytes, and no allocation when there is nothing to hide.

mod anchors;
mod formats;

pub(crate) use formats::FORMATS;
use std::borrow::Cow;

/// What a secret is replaced with. No quote or backslash: redacting inside a JSON string
/// keeps it a JSON string.
pub(crate) const REDACTED: &str = "[redacted]";

/// `text` with every credential it holds replaced by [`REDACTED`].
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    if !anchors::may_hold_a_secret(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    redact_at_word_starts(text)
}

/// [`redact`] without its prefilter: every byte a format may start at is looked at.
fn redact_at_word_starts(text: &str) -> Cow<'_, str> {
    redact_where(text, |bytes, i| {
        // Every format that starts at a letter starts a word: a letter inside a word is
        // passed over without asking them (most letters of any text are).
        !bytes[i].is_ascii_alphabetic() || formats::starts_word(bytes, i)
    })
}

/// [`redact`] asking the formats at every byte they may start at.
#[cfg(test)]
pub(crate) fn redact_at_every_start(text: &str) -> Cow<'_, str> {
    redact_where(text, |_, _| true)
}

/// [`redact`], asking the formats that may start at byte `i` only where `ask(bytes, i)`.
fn redact_where(text: &str, ask: impl Fn(&[u8], usize) -> bool) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let starts = formats::start_bytes();
    let mut out: Option<String> = None;
    // Everything before `copied` is already in `out` (or needs no change).
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let mut may_start = starts[usize::from(bytes[i])];
        if may_start == 0 || !ask(bytes, i) {
            i += 1;
            continue;
        }
        let mut secret = None;
        // The formats that may start at this byte, in their order.
        while may_start != 0 && secret.is_none() {
            let f = &FORMATS[may_start.trailing_zeros() as usize];
            may_start &= may_start - 1;
            secret = (f.find)(bytes, i).map(|span| (f.name, span));
        }
        let secret = secret
            .filter(|&(_, (start, end))| end > start && !text[start..end].starts_with(REDACTED));
        match secret {
            Some((format, (start, end))) => {
                tracing::debug!(format, "a secret redacted");
                let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                out.push_str(&text[copied..start]);
                out.push_str(REDACTED);
                copied = end;
                i = end;
            }
            None => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// Text made of credentials of each kind redacted here and what may surround them, with
/// `extra` pieces mixed in: what redaction's fast paths are checked against.
#[cfg(test)]
pub(crate) fn text_with_secrets(
    extra: &[&'static str],
) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let mut pieces = vec![
        "Bearer abcdef123456",
        "ghp_abcdefghijklmn",
        "gbr_pat_abcdefgh12",
        "https://u:secret@github.com",
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-1234567890-abcdefghij",
        "\n",
        " ",
        "x",
        ":",
        "é",
    ];
    pieces.extend_from_slice(extra);
    proptest::collection::vec(proptest::sample::select(pieces), 0..12).prop_map(|p| p.concat())
}

#[cfg(test)]
mod tests;
