//! The digest of every session that moved since a time, for `report` and the fleet opened
//! after an absence: the session list, then for each session changed since (or waiting on
//! the user) its local event log if this machine keeps one, its latest turns and artifacts, read
//! a few sessions at a time. No model call; a read that fails leaves that session's digest
//! to what the log and the list say, and the result says it is partial.

use super::builder::{DigestBuilder, Window};
use super::digest::Digest;
use super::from_event_log::digest_builder_from_event_log;
use crate::sessions::left_out::LeftOut;
use crate::store::StateStore;
use futures_util::StreamExt;
use gobare_api::client::{ApiClient, Order, Page, SessionFilter};
use gobare_api::error::ApiError;
use gobare_api::model::{Artifact, Session, Turn};
use gobare_api::paging::{self, PageLimits};
use gobare_api::unreadable::Unreadable;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Sessions read at once; the scheduler paces them to the request budget (§5).
const AT_ONCE: usize = 4;
/// Most sessions detailed; the most recently changed first.
pub(crate) const MOST_SESSIONS: usize = 100;
/// Turns and artifacts read a page: the API's largest.
const PAGE: u32 = 100;
/// How far a walk back through one session's turns or artifacts may go.
const LIMITS: PageLimits = PageLimits {
    pages: 200,
    items: 20_000,
};
/// How long before the window a turn may have started and still end inside it: a
/// workspace runs 2 h at most (§5), with paused time, a day is ample.
const LONGEST_TURN_MS: i64 = 24 * 3_600_000;

/// The digests, and why they may be incomplete.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gathered {
    pub(crate) digests: Vec<Digest>,
    /// What was left out, in words (`None`: nothing).
    pub(crate) partial: Option<String>,
}

/// How far a gather has got: sessions to read and read so far (for a progress line).
#[derive(Debug, Default)]
pub(crate) struct Progress {
    pub(crate) sessions: AtomicUsize,
    pub(crate) read: AtomicUsize,
}

/// Every session changed since `since_ms` (or waiting on the user now), as of `now_ms`.
pub(crate) async fn gather(
    client: &ApiClient,
    store: Option<&StateStore>,
    since_ms: i64,
    now_ms: i64,
    progress: Option<&Progress>,
) -> Result<Gathered, ApiError> {
    let listed = crate::sessions::list_all(client, &SessionFilter::default()).await?;
    let mut notes: Vec<String> = listed.cut.map(|c| c.to_string()).into_iter().collect();
    let mut left_out = LeftOut::of_list(&listed.unreadable, &listed.items);
    let mut moved: Vec<Session> = listed
        .items
        .into_iter()
        .filter(|s| {
            s.updated_at >= since_ms
                || !s.required_actions.is_empty()
                || !s.required_actions.unreadable().is_empty()
        })
        .collect();
    moved.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
    if moved.len() > MOST_SESSIONS {
        notes.push(format!(
            "{} sessions changed; the {MOST_SESSIONS} most recent are shown",
            moved.len()
        ));
        moved.truncate(MOST_SESSIONS);
    }
    if let Some(p) = progress {
        p.sessions.store(moved.len(), Ordering::Relaxed);
    }
    // An untitled session goes by its first message, as `list` and the fleet name it.
    let first = std::sync::Arc::new(
        crate::sessions::first_message::first_messages(client, store, &moved).await,
    );
    let results: Vec<Read> = futures_util::stream::iter(moved)
        .map(|session| {
            let first = first.clone();
            async move {
                let read = one(client, store, session, &first, since_ms, now_ms).await;
                if let Some(p) = progress {
                    p.read.fetch_add(1, Ordering::Relaxed);
                }
                read
            }
        })
        .buffered(AT_ONCE)
        .collect()
        .await;
    let failed = results.iter().filter(|r| !r.complete).count();
    if failed > 0 {
        notes.push(format!("{failed} sessions could not be read in full"));
    }
    for read in &results {
        left_out.add_turns(&read.digest.session_id, &read.unreadable_turns);
    }
    notes.extend(left_out.sentence());
    let mut digests: Vec<Digest> = results.into_iter().map(|r| r.digest).collect();
    // What waits on the user first, then what failed, then the rest (most recent first,
    // as listed).
    digests.sort_by_key(|d| (d.decisions_waiting == 0, d.turns_failed == 0));
    Ok(Gathered {
        digests,
        partial: (!notes.is_empty()).then(|| notes.join("; ")),
    })
}

/// One session's digest, and how far it was read.
struct Read {
    digest: Digest,
    /// `false` when a read failed.
    complete: bool,
    /// Turns left out because they could not be decoded.
    unreadable_turns: Vec<Unreadable>,
}

async fn one(
    client: &ApiClient,
    store: Option<&StateStore>,
    session: Session,
    first: &crate::sessions::first_message::FirstMessages,
    since_ms: i64,
    now_ms: i64,
) -> Read {
    let window = Window {
        after_seq: None,
        from_ms: Some(since_ms),
    };
    let logged = store.and_then(|store| {
        let files = store.event_log_files(&session.id).ok()?;
        digest_builder_from_event_log(&files, &session.id, window, since_ms).ok()
    });
    let known_before = session.created_at < since_ms;
    let mut builder =
        logged.unwrap_or_else(|| DigestBuilder::new(&session.id, window, since_ms, known_before));
    let title = crate::sessions::first_message::label(&session, first);
    builder.set_title(title.as_deref());
    let (turns, artifacts) = tokio::join!(
        turns_since(client, &session.id, since_ms),
        artifacts_since(client, &session.id, since_ms)
    );
    let mut complete = true;
    let mut unreadable_turns = Vec::new();
    match turns {
        Ok((turns, unreadable)) => {
            builder.turns_read(&turns, now_ms);
            unreadable_turns = unreadable;
        }
        Err(e) => {
            tracing::warn!(session = %session.id, error = %e, "report: turns not read");
            complete = false;
        }
    }
    match artifacts {
        Ok(artifacts) => builder.artifacts_read(&artifacts),
        Err(e) => {
            tracing::warn!(session = %session.id, error = %e, "report: artifacts not read");
            complete = false;
        }
    }
    builder.session_read(&session);
    Read {
        digest: builder.digest(now_ms),
        complete,
        unreadable_turns,
    }
}

/// Every turn that may have ended since `since_ms`, newest first, and the turns that could
/// not be read: pages are read until one reaches a turn created a longest turn before the
/// window.
async fn turns_since(
    client: &ApiClient,
    id: &str,
    since_ms: i64,
) -> Result<(Vec<Turn>, Vec<Unreadable>), ApiError> {
    let mut turns = Vec::new();
    let walked = paging::read_each(
        Page::ordered(Order::Desc).with_limit(PAGE),
        LIMITS,
        |t: &Turn| &t.id,
        |page| async move { client.list_readable_turns(id, &page).await },
        |page: Vec<Turn>| {
            let older = page
                .last()
                .is_some_and(|t| t.created_at < since_ms - LONGEST_TURN_MS);
            turns.extend(page);
            !older
        },
    )
    .await?;
    match walked.cut {
        None => Ok((turns, walked.unreadable)),
        Some(cut) => Err(cut_error(cut)),
    }
}

/// Every artifact published since `since_ms`, newest first.
async fn artifacts_since(
    client: &ApiClient,
    id: &str,
    since_ms: i64,
) -> Result<Vec<Artifact>, ApiError> {
    let mut artifacts = Vec::new();
    let walked = paging::read_each(
        Page::ordered(Order::Desc).with_limit(PAGE),
        LIMITS,
        |a: &Artifact| &a.id,
        |page| async move { client.list_artifacts(id, &page, None).await },
        |page: Vec<Artifact>| {
            let older = page
                .last()
                .is_some_and(|a| a.created_at.is_some_and(|at| at < since_ms));
            artifacts.extend(page);
            !older
        },
    )
    .await?;
    match walked.cut {
        None => Ok(artifacts),
        Some(cut) => Err(cut_error(cut)),
    }
}

fn cut_error(cut: paging::Cut) -> ApiError {
    ApiError::local(gobare_api::error::ApiErrorKind::Unexpected, cut.to_string())
}
