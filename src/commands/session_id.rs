//! Session ids as typed on the command line: a full id is used as it is (no request), the
//! start of one is a prefix matched against the session list and must match exactly one.
//!
//! Session ids are UUIDs (§9.1): only text that could begin one is taken, as a prefix;
//! anything else is refused before it reaches a URL, a file name or an `ssh` argument.

use crate::cli::UsageError;
use crate::config::Config;
use crate::sessions::first_message::{self, FirstMessages};
use crate::sessions::list_all;
use crate::store::StateStore;
use color_eyre::eyre::Result;
use gobare_api::client::SessionFilter;
use gobare_api::model::Session;
use gobare_api::text;

/// Candidates named when a prefix is ambiguous.
const MAX_CANDIDATES_SHOWN: usize = 10;
/// Characters of a candidate's label.
const CANDIDATE_LABEL_CHARS: usize = 60;

/// Characters of a UUID in its hyphenated form.
const UUID_CHARS: usize = 36;

/// Whether `id` is the start of a UUID's hyphenated form (a whole one included).
fn fits_uuid(id: &str) -> bool {
    id.len() <= UUID_CHARS
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Whether `id` is a whole session id (a UUID) rather than a prefix of one.
pub(crate) fn is_full_id(id: &str) -> bool {
    id.len() == UUID_CHARS && fits_uuid(id)
}

/// The session id `typed` names: itself when it is a full id, else the one session whose
/// id starts with it. No match or several is a usage error (exit 2) that names the
/// candidates.
pub(crate) async fn resolve(config: &Config, typed: &str) -> Result<String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(UsageError("the session id is empty".into()).into());
    }
    if !fits_uuid(typed) {
        // Nothing else may reach a URL, a file name or an `ssh` argument.
        let shown = text::one_line(typed, 40);
        return Err(UsageError(format!(
            "\"{shown}\" is not a session id: session ids are UUIDs such as \
             3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af, or the start of one"
        ))
        .into());
    }
    if is_full_id(typed) {
        return Ok(typed.to_string());
    }
    let client = config.client()?;
    let listed = list_all(&client, &SessionFilter::default()).await?;
    let shown = text::one_line(typed, 40);
    // A prefix names one session only when every id was seen.
    if let Some(cut) = listed.cut {
        return Err(UsageError(format!(
            "cannot tell which session \"{shown}\" names: {cut}; give the whole id"
        ))
        .into());
    }
    let sessions = listed.items;
    let mut matching = matches(&sessions, typed);
    match matching.len() {
        0 => Err(UsageError(format!(
            "no session id starts with \"{shown}\" (see `gobare-tui list`)"
        ))
        .into()),
        1 => Ok(matching.remove(0).id.clone()),
        n => {
            matching.truncate(MAX_CANDIDATES_SHOWN);
            let store = StateStore::open(&config.state_dir, &config.api).ok();
            let first =
                first_message::first_messages(&client, store.as_ref(), matching.iter().copied())
                    .await;
            Err(UsageError(ambiguous(&shown, n, &matching, &first)).into())
        }
    }
}

/// The sessions whose id starts with `prefix` (ids are compared case-insensitively: UUIDs
/// are hex), in the list's order. A listed id that is not a UUID is never taken: the server's
/// ids are held to what the user's are, before one reaches a URL, a file name or `ssh`.
fn matches<'a>(sessions: &'a [Session], prefix: &str) -> Vec<&'a Session> {
    let prefix = prefix.to_ascii_lowercase();
    sessions
        .iter()
        .filter(|s| is_full_id(&s.id) && s.id.to_ascii_lowercase().starts_with(&prefix))
        .collect()
}

/// "… matches N sessions:" and one line per candidate: its full id and its label.
fn ambiguous(shown: &str, total: usize, candidates: &[&Session], first: &FirstMessages) -> String {
    let mut message = format!("\"{shown}\" matches {total} sessions; type more of the id:");
    for session in candidates {
        let label = first_message::label(session, first)
            .map(|l| text::one_line(&l, CANDIDATE_LABEL_CHARS))
            .unwrap_or_else(|| "(untitled)".into());
        message.push_str(&format!("\n  {}  {label}", text::line(&session.id)));
    }
    if total > candidates.len() {
        message.push_str(&format!("\n  … and {} more", total - candidates.len()));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, title: Option<&str>) -> Session {
        serde_json::from_value(serde_json::json!({"id": id, "status": "idle", "title": title}))
            .unwrap()
    }

    #[test]
    fn only_a_whole_uuid_is_a_full_id() {
        assert!(is_full_id("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af"));
        assert!(is_full_id("3F9C1B60-4E2A-4D18-9A77-6C0B2E5D81AF"));
        assert!(!is_full_id("3f9c1b60"));
        assert!(!is_full_id("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81a"));
        assert!(!is_full_id("3f9c1b60x4e2a-4d18-9a77-6c0b2e5d81af"));
        assert!(!is_full_id("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81ag"));
    }

    #[test]
    fn only_the_start_of_a_uuid_is_a_prefix() {
        for prefix in ["3", "3f9c1b60", "3f9c1b60-", "3F9C1B60-4e2a-4d"] {
            assert!(fits_uuid(prefix), "{prefix}");
        }
        for other in [
            "s1",
            "3f9c1b604",
            "3f9c-",
            "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af0",
        ] {
            assert!(!fits_uuid(other), "{other}");
        }
    }

    #[test]
    fn prefixes_match_case_insensitively_in_list_order() {
        let (abc, abd, bcd) = (
            "abc10000-0000-4000-8000-000000000001",
            "ABD20000-0000-4000-8000-000000000002",
            "bcd30000-0000-4000-8000-000000000003",
        );
        let all = [session(abc, None), session(abd, None), session(bcd, None)];
        let ids = |p| {
            matches(&all, p)
                .iter()
                .map(|s| s.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids("ab"), [abc, abd]);
        assert_eq!(ids("Bc"), [bcd]);
        assert!(ids("z").is_empty());
    }

    #[test]
    fn an_ambiguous_prefix_names_each_candidate_sanitized() {
        let a = session("ab-1", Some("Deploy \u{1b}[2Jnow"));
        let b = session("ab-2", None);
        let c = session("ab-3", None);
        let mut first = FirstMessages::new();
        first.insert("ab-2".into(), "Summarise the repo".into());
        let message = ambiguous("ab", 5, &[&a, &b, &c], &first);
        assert!(message.contains("matches 5 sessions"), "{message}");
        assert!(message.contains("\n  ab-1  Deploy"), "{message}");
        assert!(!message.contains('\u{1b}'), "{message}");
        assert!(
            message.contains("\n  ab-2  Summarise the repo"),
            "{message}"
        );
        assert!(message.contains("\n  ab-3  (untitled"), "{message}");
        assert!(message.ends_with("… and 2 more"), "{message}");
    }

    #[test]
    fn a_listed_id_that_is_not_a_uuid_is_never_taken() {
        let good = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";
        let all = [
            session("3f9c1b60/../../../etc/passwd", None),
            session("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af-x", None),
            session("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81a\u{1b}", None),
            session(good, None),
        ];
        let found: Vec<&str> = matches(&all, "3f9c")
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(found, [good]);
        assert!(matches(&all[..3], "3f9c1b60").is_empty());
    }
}
