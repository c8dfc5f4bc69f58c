//! Credential redaction for text copied out of the app (export, and later the clipboard).
//!
//! Tool output carries credentials the agent saw: a GitHub installation token in a remote
//! URL (`git remote -v` → `https://x-access-token:…@github.com/…`), Gobare and GitHub
//! tokens, `Authorization: Bearer …` headers. Each is replaced by [`REDACTED`], keeping
//! what says which kind it was (the token's prefix, the URL's user, the word `Bearer`).
//! One pass over the bytes, and no allocation when there is nothing to hide.

use memchr::{memchr, memchr3};
use std::borrow::Cow;

/// What a secret is replaced with. No quote or backslash: redacting inside a JSON string
/// keeps it a JSON string.
pub(crate) const REDACTED: &str = "[redacted]";

/// Token prefixes redacted wherever they start a word, with the fewest characters after the
/// prefix that make it a token (a bare `ghp_` in prose is not one).
const TOKEN_PREFIXES: [(&str, usize); 7] = [
    ("gbr_pat_", 1),
    ("github_pat_", 1),
    ("ghp_", 6),
    ("ghs_", 6),
    ("gho_", 6),
    ("ghu_", 6),
    ("ghr_", 6),
];

/// `text` with every credential it holds replaced by [`REDACTED`].
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // Everything before `copied` is already in `out` (or needs no change).
    let mut copied = 0;
    let mut i = 0;
    // Only `g`, `b`, `B` and `:` can start a secret: jump between them. `B` is rare and
    // memchr takes three bytes at most, so its next place is kept apart.
    let mut next_upper_b = memchr(b'B', bytes).unwrap_or(bytes.len());
    while i < bytes.len() {
        if next_upper_b < i {
            next_upper_b = memchr(b'B', &bytes[i..]).map_or(bytes.len(), |n| i + n);
        }
        let next_lower = memchr3(b'g', b'b', b':', &bytes[i..]).map_or(bytes.len(), |n| i + n);
        i = next_lower.min(next_upper_b);
        if i == bytes.len() {
            break;
        }
        let secret = match bytes[i] {
            b'g' if starts_word(bytes, i) => token_after_prefix(bytes, i),
            b'b' | b'B' if starts_word(bytes, i) => bearer_credential(bytes, i),
            b':' => url_password(bytes, i),
            _ => None,
        };
        match secret {
            Some((start, end)) => {
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

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn starts_word(bytes: &[u8], i: usize) -> bool {
    i == 0 || !is_word_byte(bytes[i - 1])
}

/// Characters a token or a bearer credential is made of (RFC 6750's b64token).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'~' | b'+' | b'/' | b'=')
}

fn run_end(bytes: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| !keep(b))
        .map_or(bytes.len(), |n| from + n)
}

/// `gbr_pat_…`, `ghp_…` and the like at `i`: the range after the prefix.
fn token_after_prefix(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let (prefix, least) = TOKEN_PREFIXES
        .iter()
        .find(|(prefix, _)| bytes[i..].starts_with(prefix.as_bytes()))?;
    let start = i + prefix.len();
    let end = run_end(bytes, start, is_word_byte);
    (end - start >= *least).then_some((start, end))
}

/// `Bearer <credential>` at `i` (any case, one or more spaces): the credential's range.
fn bearer_credential(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    const WORD: &[u8] = b"bearer";
    let word = bytes.get(i..i + WORD.len())?;
    if !word.eq_ignore_ascii_case(WORD) {
        return None;
    }
    let start = run_end(bytes, i + WORD.len(), |b| b == b' ');
    if start == i + WORD.len() {
        return None;
    }
    let end = run_end(bytes, start, is_token_byte);
    // A credential is long and not a plain word ("the bearer of bad news", "bearer bonds").
    let credential = &bytes[start..end];
    let looks_secret = credential.len() >= 8
        && (credential.len() >= 20 || credential.iter().any(|b| !b.is_ascii_alphabetic()));
    looks_secret.then_some((start, end))
}

/// The password of a URL's user info (`scheme://user:PASSWORD@host`) when `i` is the `:`
/// between user and password: the password's range.
fn url_password(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let is_userinfo =
        |b: u8| !matches!(b, b'/' | b'@' | b'?' | b'#' | b'"' | b'\\' | b':') && b > b' ';
    // The user: back to `//` (or `:\/\/` in JSON text) with only user-info bytes between.
    let user_start = bytes[..i]
        .iter()
        .rposition(|&b| !is_userinfo(b))
        .map_or(0, |p| p + 1);
    let before = &bytes[..user_start];
    if !(before.ends_with(b"://") || before.ends_with(b":\\/\\/")) {
        return None;
    }
    let start = i + 1;
    let end = run_end(bytes, start, is_userinfo);
    let is_password =
        end > start && bytes.get(end) == Some(&b'@') && &bytes[start..end] != REDACTED.as_bytes();
    is_password.then_some((start, end))
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
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expected: &str) {
        assert_eq!(redact(input), expected, "{input}");
        assert_eq!(
            redact(expected),
            expected,
            "redacting twice changes nothing"
        );
    }

    #[test]
    fn a_github_token_in_a_remote_url_keeps_the_user_and_the_host() {
        check(
            "origin\thttps://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/acme/app.git (fetch)",
            "origin\thttps://x-access-token:[redacted]@github.com/acme/app.git (fetch)",
        );
        check(
            "https://user:p%40ss@example.com/x and http://a:b@h",
            "https://user:[redacted]@example.com/x and http://a:[redacted]@h",
        );
    }

    #[test]
    fn a_url_password_is_found_inside_json_text_too() {
        check(
            r#"{"summary":"https:\/\/x-access-token:s3cr3t@github.com\/a"}"#,
            r#"{"summary":"https:\/\/x-access-token:[redacted]@github.com\/a"}"#,
        );
    }

    #[test]
    fn tokens_keep_their_prefix() {
        check(
            "GOBARE_TOKEN=gbr_pat_TOPSECRET0123456789 next",
            "GOBARE_TOKEN=gbr_pat_[redacted] next",
        );
        check(
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789, ghs_0123456789, github_pat_11AAB_xyz",
            "ghp_[redacted], ghs_[redacted], github_pat_[redacted]",
        );
        check(
            "https://ghp_abcdef123456@github.com/x",
            "https://ghp_[redacted]@github.com/x",
        );
    }

    #[test]
    fn bearer_credentials_in_any_case() {
        check(
            "Authorization: Bearer eyJhbGciOi.J9-_~+/x== rest",
            "Authorization: Bearer [redacted] rest",
        );
        check(
            "authorization: bearer  abc12345",
            "authorization: bearer  [redacted]",
        );
        check(
            "\"BEARER abcdefghijklmnopqrstuvwxyz\"",
            "\"BEARER [redacted]\"",
        );
    }

    #[test]
    fn ordinary_text_is_left_alone_and_borrowed() {
        for text in [
            "",
            "the bearer of bad news, bearer instruments, Bearer abc1",
            "a ghp_ prefix alone, ghp_short, highs_abcdefgh, xgbr_pat_x",
            "see https://github.com/acme/app and mailto:a@b, ratio 1:2@3",
            "time 12:30@noon, C:\\path@x",
            "héllo wörld: ✓",
        ] {
            assert!(matches!(redact(text), Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn the_bearer_word_needs_a_credential_after_it() {
        assert_eq!(redact("Bearer"), "Bearer");
        assert_eq!(redact("Bearer "), "Bearer ");
        assert_eq!(redact("bearers abc12345"), "bearers abc12345");
    }
}
