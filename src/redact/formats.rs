//! The formats of secret that redaction knows, each a function that, at a byte where it may
//! start, says which range is the secret. The README's "What is redacted" lists them.

use super::REDACTED;

/// Where a secret lies in the text: its first byte and the byte after it.
pub(crate) type Span = (usize, usize);

/// One kind of secret.
pub(crate) struct Format {
    /// What it is, for the README, the tests and the debug log.
    pub(crate) name: &'static str,
    /// The bytes it can start at (both cases where it is read in any case).
    pub(crate) starts: &'static [u8],
    /// At `i` (a byte of `starts`): the range to redact.
    pub(crate) find: fn(&[u8], usize) -> Option<Span>,
}

/// Every format, tried in this order where several can start at one byte.
pub(crate) const FORMATS: [Format; 8] = [
    Format {
        name: "tokens by prefix: gbr_pat_, github_pat_, ghp_ ghs_ gho_ ghu_ ghr_, sk- sk-proj- \
               sk-ant-, sk_live_ sk_test_ rk_live_ rk_test_, xoxb- xoxp- xoxa- xoxr- xoxs- \
               xapp- (the prefix kept)",
        starts: b"gsrx",
        find: prefixed_token,
    },
    Format {
        name: "AWS access key ids: AKIA or ASIA and 16 letters or digits (the prefix kept)",
        starts: b"A",
        find: aws_key_id,
    },
    Format {
        name: "named secrets: aws_secret_access_key, x-api-key and api_key, then `=` or `:` \
               (any case; the name kept)",
        starts: b"aAxX",
        find: named_secret,
    },
    Format {
        name: "Authorization headers: `Authorization: <scheme> <credential>` (Basic, Bearer, \
               any scheme; the scheme kept)",
        starts: b"aA",
        find: authorization,
    },
    Format {
        name: "bearer credentials anywhere: `Bearer <credential>` (any case)",
        starts: b"bB",
        find: bearer,
    },
    Format {
        name: "JSON Web Tokens: eyJ….eyJ….<signature>",
        starts: b"e",
        find: jwt,
    },
    Format {
        name: "PEM private keys: the body between `-----BEGIN … PRIVATE KEY-----` and \
               `-----END` (the armour kept; to the end of the text when it has no end)",
        starts: b"-",
        find: pem_private_key,
    },
    Format {
        name: "URL passwords: scheme://user:<password>@host (the user kept)",
        starts: b":",
        find: url_password,
    },
];

// One bit per format in [`start_bytes`].
const _: () = assert!(FORMATS.len() <= u8::BITS as usize);

/// For each byte, the formats that can start at it: bit `n` for `FORMATS[n]`.
pub(crate) fn start_bytes() -> &'static [u8; 256] {
    static STARTS: std::sync::OnceLock<[u8; 256]> = std::sync::OnceLock::new();
    STARTS.get_or_init(|| {
        let mut starts = [0u8; 256];
        for (n, format) in FORMATS.iter().enumerate() {
            for &b in format.starts {
                starts[usize::from(b)] |= 1 << n;
            }
        }
        starts
    })
}

/// Token prefixes, with the fewest characters after the prefix that make it a token (a
/// bare `ghp_` in prose is not one) and whether `-` is one of its characters.
const PREFIXES: [(&str, usize, bool); 20] = [
    ("gbr_pat_", 1, false),
    ("github_pat_", 1, false),
    ("ghp_", 6, false),
    ("ghs_", 6, false),
    ("gho_", 6, false),
    ("ghu_", 6, false),
    ("ghr_", 6, false),
    ("sk-proj-", 8, true),
    ("sk-ant-", 8, true),
    ("sk-", 20, true),
    ("sk_live_", 8, false),
    ("sk_test_", 8, false),
    ("rk_live_", 8, false),
    ("rk_test_", 8, false),
    ("xoxb-", 8, true),
    ("xoxp-", 8, true),
    ("xoxa-", 8, true),
    ("xoxr-", 8, true),
    ("xoxs-", 8, true),
    ("xapp-", 8, true),
];

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Characters a token or a credential is made of (RFC 6750's b64token).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'~' | b'+' | b'/' | b'=')
}

fn run_end(bytes: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| !keep(b))
        .map_or(bytes.len(), |n| from + n)
}

/// Whether the bytes just before `i` are a JSON escape (`\n`, `\t`, `\"`, `\u001b`…):
/// then `i` follows the character it stands for, never a letter of a word.
fn after_escape(bytes: &[u8], i: usize) -> bool {
    let short = i >= 2
        && bytes[i - 2] == b'\\'
        && matches!(bytes[i - 1], b'n' | b't' | b'r' | b'b' | b'f' | b'"' | b'/');
    let unicode = i >= 6
        && bytes[i - 6] == b'\\'
        && bytes[i - 5] == b'u'
        && bytes[i - 4..i].iter().all(u8::is_ascii_hexdigit);
    short || unicode
}

/// Whether a word starts at `i`: not after a letter or digit (an underscore joins names:
/// `MY_gbr_pat_…` holds a token), or right after a JSON escape. Every format starting at a
/// letter asks this first: [`super::redact`] asks it for them.
#[inline]
pub(crate) fn starts_word(bytes: &[u8], i: usize) -> bool {
    i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || after_escape(bytes, i)
}

/// Whether a word ends at `end`.
fn ends_word(bytes: &[u8], end: usize) -> bool {
    bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric())
}

/// `word` (any case) at `i`, starting a word.
fn word_at(bytes: &[u8], i: usize, word: &[u8]) -> bool {
    starts_word(bytes, i)
        && bytes
            .get(i..i + word.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// The end of a run of blanks from `from`: spaces, tabs and their JSON escape `\t`.
fn blanks_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    loop {
        match bytes.get(at..at + 2) {
            Some(b"\\t") => at += 2,
            _ if matches!(bytes.get(at), Some(b' ' | b'\t')) => at += 1,
            _ => return at,
        }
    }
}

fn prefixed_token(bytes: &[u8], i: usize) -> Option<Span> {
    if !starts_word(bytes, i) {
        return None;
    }
    let &(prefix, least, dashes) = PREFIXES
        .iter()
        .find(|(prefix, ..)| bytes[i..].starts_with(prefix.as_bytes()))?;
    let start = i + prefix.len();
    let end = run_end(bytes, start, |b| is_word_byte(b) || (dashes && b == b'-'));
    (end - start >= least).then_some((start, end))
}

fn aws_key_id(bytes: &[u8], i: usize) -> Option<Span> {
    let prefix = bytes.get(i..i + 4)?;
    if !(prefix == b"AKIA" || prefix == b"ASIA") || !starts_word(bytes, i) {
        return None;
    }
    let (start, end) = (i + 4, i + 20);
    let id = bytes.get(start..end)?;
    let shaped = id
        .iter()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    (shaped && ends_word(bytes, end)).then_some((start, end))
}

/// After a name at `from`: quotes, blanks and one `=` or `:`; where the value starts.
fn value_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    let mut assigned = false;
    loop {
        at = blanks_end(bytes, at);
        match bytes.get(at..at + 2) {
            Some(b"\\\"") => at += 2,
            _ => match bytes.get(at) {
                Some(b'"' | b'\'') => at += 1,
                Some(b'=' | b':') if !assigned => {
                    assigned = true;
                    at += 1;
                }
                _ => return assigned.then_some(at),
            },
        }
    }
}

/// A value that looks like a secret rather than a word: long, or not only letters.
fn looks_secret(value: &[u8]) -> bool {
    value.len() >= 8 && (value.len() >= 20 || value.iter().any(|b| !b.is_ascii_alphabetic()))
}

fn named_secret(bytes: &[u8], i: usize) -> Option<Span> {
    const NAMES: [&[u8]; 4] = [
        b"aws_secret_access_key",
        b"x-api-key",
        b"x_api_key",
        b"api_key",
    ];
    let name = NAMES.iter().find(|name| word_at(bytes, i, name))?;
    let start = value_start(bytes, i + name.len())?;
    let end = run_end(bytes, start, is_token_byte);
    looks_secret(&bytes[start..end]).then_some((start, end))
}

fn authorization(bytes: &[u8], i: usize) -> Option<Span> {
    const NAME: &[u8] = b"authorization";
    if !word_at(bytes, i, NAME) {
        return None;
    }
    let scheme = value_start(bytes, i + NAME.len())?;
    let scheme_end = run_end(bytes, scheme, |b| b.is_ascii_alphabetic());
    let start = blanks_end(bytes, scheme_end);
    if start == scheme_end {
        // No scheme: the value itself is the credential.
        let end = run_end(bytes, scheme, is_token_byte);
        return looks_secret(&bytes[scheme..end]).then_some((scheme, end));
    }
    let end = run_end(bytes, start, is_token_byte);
    (end - start >= 4).then_some((start, end))
}

fn bearer(bytes: &[u8], i: usize) -> Option<Span> {
    const WORD: &[u8] = b"bearer";
    if !word_at(bytes, i, WORD) {
        return None;
    }
    let start = blanks_end(bytes, i + WORD.len());
    if start == i + WORD.len() {
        return None;
    }
    let end = run_end(bytes, start, is_token_byte);
    // A credential is long and not a plain word ("the bearer of bad news", "bearer bonds").
    looks_secret(&bytes[start..end]).then_some((start, end))
}

fn jwt(bytes: &[u8], i: usize) -> Option<Span> {
    let is_b64url = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    if !bytes[i..].starts_with(b"eyJ") || !starts_word(bytes, i) {
        return None;
    }
    let header_end = run_end(bytes, i, is_b64url);
    if bytes.get(header_end) != Some(&b'.') || !bytes[header_end + 1..].starts_with(b"eyJ") {
        return None;
    }
    let payload_end = run_end(bytes, header_end + 1, is_b64url);
    if bytes.get(payload_end) != Some(&b'.') {
        return None;
    }
    Some((i, run_end(bytes, payload_end + 1, is_b64url)))
}

fn pem_private_key(bytes: &[u8], i: usize) -> Option<Span> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    const KEY: &[u8] = b"PRIVATE KEY-----";
    if !bytes[i..].starts_with(BEGIN) {
        return None;
    }
    let line = &bytes[i..];
    let line_len = memchr::memchr(b'\n', line).unwrap_or(line.len()).min(80);
    let armour = memchr::memmem::find(&line[..line_len], KEY)?;
    let start = i + armour + KEY.len();
    let end = memchr::memmem::find(&bytes[start..], b"-----END").map_or(bytes.len(), |n| start + n);
    Some((start, end))
}

/// The password of a URL's user info (`scheme://user:PASSWORD@host`) when `i` is the `:`
/// between user and password: the password's range.
fn url_password(bytes: &[u8], i: usize) -> Option<Span> {
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
