//! The label of a session in a list: its title, or its first message when untitled (titles
//! are never derived, §9.1), read with one small items page per untitled session and
//! remembered on disk (a message once sent never changes).

use crate::store::StateStore;
use futures_util::StreamExt;
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::error::ApiError;
use gobare_api::error::ApiErrorKind;
use gobare_api::model::{Item, ItemKind, Session};
use gobare_api::text;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Items read to find the first message: a session's transcript starts with it, but a
/// `context` item or a run-start `error` may come first.
const ITEMS_LOOKED_AT: u32 = 5;
/// Lookups in flight at once: quick for a page of sessions, gentle on the rate limit.
const CONCURRENT_LOOKUPS: usize = 8;
/// Characters kept of a label (a list row shows fewer).
pub(crate) const LABEL_CHARS: usize = 200;

/// First messages by session id, sanitized to one line.
pub(crate) type FirstMessages = HashMap<String, String>;

/// The session's title, sanitized to one line, when it has a non-blank one.
pub(crate) fn title(session: &Session) -> Option<String> {
    let title = text::one_line(session.title.as_deref()?, LABEL_CHARS);
    (!title.trim().is_empty()).then_some(title)
}

/// The title, else the first message, else `None` (an untitled session with no messages).
pub(crate) fn label(session: &Session, first: &FirstMessages) -> Option<String> {
    title(session).or_else(|| first.get(&session.id).cloned())
}

/// The first message among `items` (oldest first), sanitized to one line.
pub(crate) fn first_message_of(items: &[Item]) -> Option<String> {
    items
        .iter()
        .filter(|i| i.kind == ItemKind::Message)
        .map(|i| text::one_line(&i.content, LABEL_CHARS))
        .find(|t| !t.trim().is_empty())
}

/// `GET …/items?order=asc&limit=5`: the session's first message, if it has one.
pub(crate) async fn first_message(
    client: &ApiClient,
    session_id: &str,
) -> Result<Option<String>, ApiError> {
    let page = Page::ordered(Order::Asc).with_limit(ITEMS_LOOKED_AT);
    let items = client.list_items(session_id, &page).await?;
    Ok(first_message_of(&items.data))
}

/// First messages of the untitled sessions among `sessions`: those `store` remembers, and
/// the others read (and then remembered). A lookup that fails leaves that session without
/// one rather than failing the list; once the API says "rate limited", no more are asked
/// (the next list asks again, for fewer).
pub(crate) async fn first_messages<'a>(
    client: &ApiClient,
    store: Option<&StateStore>,
    sessions: impl IntoIterator<Item = &'a Session>,
) -> FirstMessages {
    let mut known: FirstMessages = store
        .map(StateStore::first_messages)
        .unwrap_or_default()
        .into_iter()
        .collect();
    // Owned ids: a stream of borrowed ones makes this future's `Send` higher-ranked, which a
    // spawned caller (the fleet's digest) cannot meet.
    let untitled: Vec<String> = sessions
        .into_iter()
        .filter(|s| title(s).is_none() && !known.contains_key(&s.id))
        .map(|s| s.id.clone())
        .collect();
    let limited = AtomicBool::new(false);
    let limited = &limited;
    let found: Vec<(String, String)> = futures_util::stream::iter(untitled)
        .map(|id| async move {
            if limited.load(Ordering::Relaxed) {
                return None;
            }
            match first_message(client, &id).await {
                Ok(found) => found.map(|text| (id, text)),
                Err(e) => {
                    if e.kind == ApiErrorKind::RateLimited {
                        limited.store(true, Ordering::Relaxed);
                    }
                    tracing::warn!(session = %text::line(&id), error = %e, "no first message");
                    None
                }
            }
        })
        .buffer_unordered(CONCURRENT_LOOKUPS)
        .filter_map(|found| async move { found })
        .collect()
        .await;
    if let Some(store) = store
        && let Err(e) = store.add_first_messages(&found)
    {
        tracing::warn!("cannot remember first messages: {e}");
    }
    known.extend(found);
    known
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: &str, content: &str) -> Item {
        serde_json::from_value(serde_json::json!({
            "id": "i", "type": kind, "content": content, "role": "user",
        }))
        .unwrap()
    }

    fn session(title: Option<&str>) -> Session {
        serde_json::from_value(serde_json::json!({
            "id": "s1", "status": "idle", "title": title,
        }))
        .unwrap()
    }

    #[test]
    fn the_first_non_blank_message_is_taken_and_sanitized() {
        let items = [
            item("context", "background"),
            item("message", "  "),
            item("message", "Fix the \u{1b}[31mbuild\u{1b}[0m\nplease"),
            item("message", "later"),
        ];
        let first = first_message_of(&items).unwrap();
        assert!(
            !first.contains('\u{1b}') && !first.contains('\n'),
            "{first:?}"
        );
        assert!(
            first.starts_with("Fix the") && first.contains("build"),
            "{first:?}"
        );
        assert_eq!(first_message_of(&[item("error", "boom")]), None);
    }

    #[test]
    fn label_prefers_a_real_title_then_the_first_message() {
        let mut first = FirstMessages::new();
        assert_eq!(label(&session(None), &first), None);
        first.insert("s1".into(), "hello".into());
        assert_eq!(label(&session(None), &first).as_deref(), Some("hello"));
        assert_eq!(
            label(&session(Some("   ")), &first).as_deref(),
            Some("hello")
        );
        assert_eq!(
            label(&session(Some("Nightly")), &first).as_deref(),
            Some("Nightly")
        );
    }
}
