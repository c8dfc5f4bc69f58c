//! `GET /v1/sessions/{id}/events` and `GET /v1/events[?root=]` (§7).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;

use super::query::Query;
use crate::refusal::Refusal;
use crate::sse::{self, Scope};
use crate::state::Shared;

pub(crate) async fn session_events(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    let q = Query::parse(uri.query(), &["last_event_id"])?;
    let cursor = sse::cursor(&headers, q.get("last_event_id"))?;
    if state.db().session(&id).is_none() {
        return Err(Refusal::not_found(format!("No session {id}.")));
    }
    sse::hold_open(&state).await;
    sse::open(&state, Scope::Session(id), cursor)
}

pub(crate) async fn org_events(
    State(state): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    let q = Query::parse(uri.query(), &["last_event_id", "root"])?;
    if state.faults().refuse_org_stream {
        return Err(crate::faults::Faults::missing_scope("sessions:read"));
    }
    let cursor = sse::cursor(&headers, q.get("last_event_id"))?;
    let scope = match q.get("root") {
        Some(root) => {
            if state.db().session(root).is_none() {
                return Err(Refusal::not_found(format!("No session {root}.")));
            }
            Scope::Tree(root.to_string())
        }
        None => Scope::Org,
    };
    sse::hold_open(&state).await;
    sse::open(&state, scope, cursor)
}
