//! Turns, items and artifacts (§6.5–§6.7).

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{Uri, header};
use axum::response::IntoResponse;
use bytes::Bytes;
use serde_json::{Value, json};

use super::body;
use super::query::{PAGING, Paging, Query};
use super::reply;
use crate::db::Db;
use crate::refusal::Refusal;
use crate::state::Shared;
use crate::workspace::tar;
use gobare_api::model::{Artifact, Turn};

/// `f` on the database, when the session exists.
fn with_db<T>(state: &Shared, id: &str, f: impl FnOnce(&Db) -> T) -> Result<T, Refusal> {
    let db = state.db();
    if db.session(id).is_none() {
        return Err(Refusal::not_found(format!("No session {id}.")));
    }
    Ok(f(&db))
}

pub(crate) async fn turns(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    let paging = Paging::from(&Query::parse(uri.query(), &PAGING)?)?;
    if state.faults().fail_turn_lists {
        return Err(Refusal::new(
            gobare_api::model::ErrorCode::PermissionDenied,
            "This token may not read turns.",
        ));
    }
    while paging.continues() && state.faults().hold_later_turn_pages {
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_millis(20)) => {}
            _ = state.shutdown.cancelled() => break,
        }
    }
    // Only the page is read from the store: a 25,000-turn session is listed in 250 pages.
    let mut has_more = false;
    let mut turns = state
        .db()
        .turns_at(&id, |len, position| {
            let (range, more) = paging.window(len, position);
            has_more = more;
            range
        })
        .ok_or_else(|| Refusal::not_found(format!("No session {id}.")))?;
    if !paging.ascending() {
        turns.reverse();
    }
    let last_id = turns.last().map(|t| t.id.clone());
    Ok(Json(
        json!({"object": "list", "data": turns, "has_more": has_more, "last_id": last_id}),
    ))
}

pub(crate) async fn turn(
    State(state): State<Shared>,
    Path((id, turn_id)): Path<(String, String)>,
    uri: Uri,
) -> Result<Json<Turn>, Refusal> {
    Query::parse(uri.query(), &[])?;
    with_db(&state, &id, |db| db.turn(&id, &turn_id))?
        .map(Json)
        .ok_or_else(|| Refusal::not_found(format!("No turn {turn_id} in session {id}.")))
}

pub(crate) async fn items(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    let paging = Paging::from(&Query::parse(uri.query(), &PAGING)?)?;
    let items = {
        let db = state.db();
        if db.session(&id).is_none() {
            return Err(Refusal::not_found(format!("No session {id}.")));
        }
        db.items(&id)
    };
    Ok(Json(paging.page(items, |i| i.id.as_str())))
}

pub(crate) async fn artifacts(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    let q = Query::parse(uri.query(), &[PAGING[0], PAGING[1], PAGING[2], "turn_id"])?;
    let paging = Paging::from(&q)?;
    let turn = q.get("turn_id").map(str::to_string);
    let list: Vec<Artifact> = with_db(&state, &id, |db| db.artifacts(&id, turn.as_deref()))?;
    Ok(Json(paging.page(list, |a| a.id.as_str())))
}

pub(crate) async fn artifact(
    State(state): State<Shared>,
    Path((id, artifact_id)): Path<(String, String)>,
    uri: Uri,
) -> Result<Json<Artifact>, Refusal> {
    Query::parse(uri.query(), &[])?;
    with_db(&state, &id, |db| db.artifact(&id, &artifact_id))?
        .map(Json)
        .ok_or_else(|| Refusal::not_found(format!("No artifact {artifact_id}.")))
}

pub(crate) async fn artifact_content(
    State(state): State<Shared>,
    Path((id, artifact_id)): Path<(String, String)>,
    uri: Uri,
) -> Result<impl IntoResponse, Refusal> {
    Query::parse(uri.query(), &[])?;
    let found = with_db(&state, &id, |db| {
        let meta = db.artifact(&id, &artifact_id)?;
        let body = Bytes::from(db.artifact_body(&id, &artifact_id)?);
        Some((meta.content_type, body))
    })?;
    let (content_type, body) =
        found.ok_or_else(|| Refusal::not_found(format!("No artifact {artifact_id}.")))?;
    let content_type = content_type.unwrap_or_else(|| "application/octet-stream".into());
    let length = body.len();
    let faults = state.faults();
    let body = match faults.cut_artifact_content_after {
        Some(cut) => cut_short(body, cut, faults.stall_artifact_content),
        None => Body::from(body),
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_LENGTH, length.to_string()),
        ],
        body,
    ))
}

/// The first `cut` bytes of `body`, then an error that drops the connection (or, with
/// `stall`, nothing ever again): the announced `Content-Length` is never reached. The
/// error waits one scheduler turn so that the headers and the first bytes are flushed
/// before the connection drops.
fn cut_short(body: Bytes, cut: u64, stall: bool) -> Body {
    let head = body.slice(..body.len().min(cut as usize));
    let chunks = futures_util::stream::unfold(Some(head), move |head| async move {
        match head {
            Some(head) => Some((Ok(head), None)),
            None => {
                if stall {
                    std::future::pending::<()>().await;
                }
                tokio::task::yield_now().await;
                Some((
                    Err(std::io::Error::other("download cut short by a fault")),
                    None,
                ))
            }
        }
    });
    Body::from_stream(chunks)
}

/// `DELETE …/artifacts/{artifact_id}`: the typed `artifact.deleted` of newer servers.
pub(crate) async fn delete_artifact(
    State(state): State<Shared>,
    Path((id, artifact_id)): Path<(String, String)>,
    _: body::NoInput,
) -> Result<Json<Value>, Refusal> {
    let mut db = state.db();
    if db.session(&id).is_none() {
        return Err(Refusal::not_found(format!("No session {id}.")));
    }
    if !db.delete_artifact(&id, &artifact_id) {
        return Err(Refusal::not_found(format!("No artifact {artifact_id}.")));
    }
    Ok(reply::deleted("artifact.deleted", &artifact_id))
}

/// `GET …/artifacts/archive[?turn_id=]`: a POSIX tar of the stored copies. With `turn_id`
/// entries carry their workspace paths; without it each is prefixed with its turn id.
/// Artifacts whose stored copy is gone are left out.
pub(crate) async fn artifact_archive(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<impl IntoResponse, Refusal> {
    let q = Query::parse(uri.query(), &["turn_id"])?;
    let turn = q.get("turn_id").map(str::to_string);
    let entries = with_db(&state, &id, |db| {
        if let Some(t) = &turn
            && db.turn(&id, t).is_none()
        {
            return Err(Refusal::not_found(format!("No turn {t} in session {id}.")));
        }
        Ok(db
            .artifacts(&id, turn.as_deref())
            .into_iter()
            .filter_map(|a| {
                let body = db.artifact_body(&id, &a.id)?;
                let path = a.path.trim_start_matches('/');
                let name = match &turn {
                    Some(_) => path.to_string(),
                    None => format!("{}/{path}", a.turn_id),
                };
                let mtime = a.created_at.unwrap_or(0).max(0) as u64 / 1000;
                Some((name, body, mtime))
            })
            .collect::<Vec<_>>())
    })??;
    let mut archive = Vec::new();
    for (name, bytes, mtime) in entries {
        if let Err(e) = tar::append(&mut archive, &name, &bytes, mtime) {
            // Such a path cannot be named in ustar; the rest of the archive still is.
            tracing::warn!("artifact left out of the archive: {e}");
        }
    }
    tar::finish(&mut archive);
    Ok(([(header::CONTENT_TYPE, "application/x-tar")], archive))
}
