//! The redactor on hostile text: a planted token inserted at any place of arbitrary text,
//! the whole then JSON-escaped none to three times (as it stands in an event's JSON, or in
//! a JSON string inside one); the token never survives.
#![no_main]

use gobare_tui::fuzzing::redact;
use libfuzzer_sys::fuzz_target;

/// The planted token's body (after its `gbr_pat_` prefix): 32 letters and digits.
const BODY: &str = "Q7fK2mZp9LxR4tWv8NcB3hJs6DgY1aEu";

fuzz_target!(|input: &[u8]| {
    // The first three bytes choose where the token goes and how often the text is escaped.
    let (control, rest) = input.split_at(input.len().min(3));
    let text = String::from_utf8_lossy(rest);
    let wanted = control.first().map_or(0, |&b| usize::from(b) << 8)
        + control.get(1).map_or(0, |&b| usize::from(b));
    let mut at = wanted % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    // A token starts a word (the redactor leaves `xgbr_pat_…` alone on purpose: a longer
    // word that happens to contain the prefix is not a token): glued to a letter or digit,
    // a space goes first.
    let glued = text[..at].chars().next_back().is_some_and(char::is_alphanumeric);
    let gap = if glued { " " } else { "" };
    let mut planted = format!("{}{gap}gbr_pat_{BODY}{}", &text[..at], &text[at..]);
    for _ in 0..control.get(2).map_or(0, |&b| b % 4) {
        planted = serde_json::to_string(&planted).expect("a string is JSON");
    }
    let out = redact(&planted);
    // The fuzzer may write the body itself without the prefix: that is no secret.
    let survived = out.matches(BODY).count();
    let unplanted = text.matches(BODY).count();
    assert!(
        survived <= unplanted,
        "the token survived redaction: {planted:?} → {out:?}"
    );
});
