//! The digest of every session that moved since a time, for `report` and the fleet opened
//! after an absence: the session list, then for each session changed since (or waiting on
//! the user) its local log if this machine keeps one, its latest turns and artifacts, read
//! a few sessions at a time. No model call; a read that fails leaves that session's digest
//! to what the log and the list say, and the result says it is partial.

use super::builder::{DigestBuilder, Window};
use super::digest::Digest;
use super::from_log::digest_builder_from_log;
use crate::store::StateStore;
use futures_util::StreamExt;
use gobare_api::client::{ApiClient, Order, Page, SessionFilter};
use gobare_api::error::ApiError;
use gobare_api::model::Session;

/// Sessions read at once (the request budget is 120 a minute, §5).
const AT_ONCE: usize = 4;
/// Most sessions detailed; the most recently changed first.
pub(crate) const MOST_SESSIONS: usize = 100;
/// Turns and artifacts read per session: the newest page.
const PAGE: u32 = 50;

/// The digests, and why they may be incomplete.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gathered {
    pub(crate) digests: Vec<Digest>,
    /// What was left out, in words (`None`: nothing).
    pub(crate) partial: Option<String>,
}

/// Every session changed since `since_ms` (or waiting on the user now), as of `now_ms`.
pub(crate) async fn gather(
    client: &ApiClient,
    store: Option<&StateStore>,
    since_ms: i64,
    now_ms: i64,
) -> Result<Gathered, ApiError> {
    let listed = crate::sessions::list_all(client, &SessionFilter::default()).await?;
    let mut notes: Vec<String> = listed.cut.map(|c| c.to_string()).into_iter().collect();
    let mut moved: Vec<Session> = listed
        .items
        .into_iter()
        .filter(|s| s.updated_at >= since_ms || !s.required_actions.is_empty())
        .collect();
    moved.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
    if moved.len() > MOST_SESSIONS {
        notes.push(format!(
            "{} sessions changed; the {MOST_SESSIONS} most recent are shown",
            moved.len()
        ));
        moved.truncate(MOST_SESSIONS);
    }
    let results: Vec<(Digest, bool)> = futures_util::stream::iter(moved)
        .map(|session| one(client, store, session, since_ms, now_ms))
        .buffered(AT_ONCE)
        .collect()
        .await;
    let failed = results.iter().filter(|(_, complete)| !complete).count();
    if failed > 0 {
        notes.push(format!("{failed} sessions could not be read in full"));
    }
    let mut digests: Vec<Digest> = results.into_iter().map(|(d, _)| d).collect();
    // What waits on the user first, then what failed, then the rest (most recent first,
    // as listed).
    digests.sort_by_key(|d| (d.decisions_waiting == 0, d.turns_failed == 0));
    Ok(Gathered {
        digests,
        partial: (!notes.is_empty()).then(|| notes.join("; ")),
    })
}

/// One session's digest; `false` when a read failed.
async fn one(
    client: &ApiClient,
    store: Option<&StateStore>,
    session: Session,
    since_ms: i64,
    now_ms: i64,
) -> (Digest, bool) {
    let window = Window {
        after_seq: None,
        from_ms: Some(since_ms),
    };
    let logged = store.and_then(|store| {
        let files = store.event_log_files(&session.id).ok()?;
        digest_builder_from_log(&files, &session.id, window, since_ms).ok()
    });
    let known_before = session.created_at < since_ms;
    let mut builder =
        logged.unwrap_or_else(|| DigestBuilder::new(&session.id, window, since_ms, known_before));
    let title = crate::sessions::first_message::title(&session);
    builder.set_title(title.as_deref());
    let page = Page::ordered(Order::Desc).with_limit(PAGE);
    let (turns, artifacts) = tokio::join!(
        client.list_turns(&session.id, &page),
        client.list_artifacts(&session.id, &page, None)
    );
    let mut complete = true;
    match turns {
        Ok(turns) => builder.turns_read(&turns.data, now_ms),
        Err(e) => {
            tracing::warn!(session = %session.id, error = %e, "report: turns not read");
            complete = false;
        }
    }
    match artifacts {
        Ok(artifacts) => builder.artifacts_read(&artifacts.data),
        Err(e) => {
            tracing::warn!(session = %session.id, error = %e, "report: artifacts not read");
            complete = false;
        }
    }
    builder.session_read(&session);
    (builder.digest(now_ms), complete)
}
