//! A session's labels (`metadata`, §9.1: strings, at most 16): read leniently (a value that
//! is not a string is shown as JSON), worded sanitized, and edited as `key=value` text.

use std::collections::BTreeMap;

use gobare_api::model::Session;
use gobare_api::text;

/// Characters of one label's value in a line.
const VALUE_CHARS: usize = 40;

/// The session's labels as strings, in key order.
pub(crate) fn of(session: &Session) -> BTreeMap<String, String> {
    session
        .metadata
        .iter()
        .flatten()
        .map(|(k, v)| {
            let v = match v.as_str() {
                Some(s) => s.to_string(),
                None => v.to_string(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// `key=value key=value`, sanitized, or `None` when it has none.
pub(crate) fn words(session: &Session) -> Option<String> {
    words_of(&of(session))
}

/// [`words`] of labels already read.
pub(crate) fn words_of(labels: &BTreeMap<String, String>) -> Option<String> {
    (!labels.is_empty()).then(|| {
        labels
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    text::one_line(k, VALUE_CHARS),
                    text::one_line(v, VALUE_CHARS)
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The labels as an editable line, `key=value` pairs separated by spaces (a value with a
/// space is not representable here and is kept by [`parse`] only through its key).
pub(crate) fn edit_text(labels: &BTreeMap<String, String>) -> String {
    labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `needle` (lower case) is found in one of the labels written `key=value`.
pub(crate) fn any_contains(labels: &BTreeMap<String, String>, needle: &str) -> bool {
    labels
        .iter()
        .any(|(k, v)| format!("{k}={v}").to_lowercase().contains(needle))
}

/// The labels a person typed: `key=value` pairs separated by spaces or commas; empty text
/// clears them.
pub(crate) fn parse(typed: &str) -> Result<BTreeMap<String, String>, String> {
    let mut labels = BTreeMap::new();
    for pair in typed
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|p| !p.is_empty())
    {
        match pair.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                labels.insert(k.to_string(), v.to_string());
            }
            _ => return Err(format!("{pair:?} is not key=value")),
        }
    }
    if labels.len() > 16 {
        return Err(format!(
            "{} labels: a session holds at most 16",
            labels.len()
        ));
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_pairs_round_trip_and_bad_ones_are_named() {
        let l = parse("job=8842, team=infra").unwrap();
        assert_eq!(edit_text(&l), "job=8842 team=infra");
        assert_eq!(parse(&edit_text(&l)).unwrap(), l);
        assert!(parse("").unwrap().is_empty());
        assert_eq!(parse("job").unwrap_err(), "\"job\" is not key=value");
    }

    #[test]
    fn words_are_sanitized() {
        let s: Session = serde_json::from_value(serde_json::json!({
            "id": "s", "status": "idle", "created_at": 0, "updated_at": 0, "agent": {},
            "environment": {}, "preview": {},
            "metadata": {"job": "88\u{1b}[2J42", "n": 3}
        }))
        .unwrap();
        let w = words(&s).unwrap();
        assert!(!w.contains('\u{1b}'), "{w:?}");
        assert!(w.contains("n=3"), "{w}");
    }
}
