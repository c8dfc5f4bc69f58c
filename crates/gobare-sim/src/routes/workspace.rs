//! The workspace routes: files (§6.8), tools, preview (§6.9) and usage (§6.3).

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::body;
use super::query::Query;
use super::reply;
use crate::agent::tools;
use crate::db::SessionRec;
use crate::refusal::Refusal;
use crate::state::Shared;
use crate::workspace::files::{self, Snapshot};
use crate::workspace::lifecycle::{self, Readiness};
use gobare_api::clock::unix_ms;
use gobare_api::model::{ErrorCode, WorkspaceState};

fn no_session(id: &str) -> Refusal {
    Refusal::not_found(format!("No session {id}."))
}

fn with_session<T>(
    state: &Shared,
    id: &str,
    f: impl FnOnce(&mut SessionRec) -> T,
) -> Result<T, Refusal> {
    let mut db = state.db();
    let rec = db.session_mut(id).ok_or_else(|| no_session(id))?;
    Ok(f(rec))
}

/// Makes the workspace able to take a write or a snapshot: a paused one is woken (§9.1);
/// one not up yet, being rebuilt, or whose bridge is restarting after `PUT …/tools` is
/// `409 conflict` (retry; nothing was done), and one never started starts then, so the
/// retry finds it up with the repository; one whose rebuild gave up is
/// `500 workspace_recovery_failed`.
async fn workspace_ready(state: &Shared, id: &str) -> Result<(), Refusal> {
    let (workspace, bridge_ready_at) =
        with_session(state, id, |r| (r.workspace.clone(), r.bridge_ready_at))?;
    match workspace {
        WorkspaceState::Running => {}
        WorkspaceState::Paused => {
            if lifecycle::ensure_running(state, id).await != Readiness::Running {
                return Err(no_session(id));
            }
        }
        WorkspaceState::RecoveryFailed => {
            return Err(Refusal::new(
                ErrorCode::WorkspaceRecoveryFailed,
                "The workspace could not be restored; send a message to rebuild it.",
            ));
        }
        other => {
            if other == WorkspaceState::Unknown {
                let state = state.clone();
                let id = id.to_string();
                tokio::spawn(async move {
                    if lifecycle::ensure_running(&state, &id).await == Readiness::Running {
                        lifecycle::touch_idle(&state, &id);
                    }
                });
            }
            return Err(Refusal::conflict(
                "The workspace is not ready yet; retry in a moment. Nothing was done.",
            ));
        }
    }
    if bridge_ready_at.is_some_and(|at| at > tokio::time::Instant::now()) {
        return Err(Refusal::conflict(
            "The workspace is not ready yet (its bridge is restarting); retry in a moment. \
             Nothing was done.",
        ));
    }
    lifecycle::touch_idle(state, id);
    Ok(())
}

async fn capture(state: &Shared, id: &str) -> Result<Value, Refusal> {
    workspace_ready(state, id).await?;
    with_session(state, id, |r| {
        r.snapshot = Some(Snapshot::of(&r.files));
        files::tree(r.snapshot.as_ref())
    })
}

/// `GET …/files[?refresh=1]`: the last snapshot; `refresh=1` takes one first.
pub(crate) async fn list_files(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    let q = Query::parse(uri.query(), &["refresh"])?;
    match q.get("refresh") {
        None => Ok(Json(with_session(&state, &id, |r| {
            files::tree(r.snapshot.as_ref())
        })?)),
        Some("1") => Ok(Json(capture(&state, &id).await?)),
        Some(other) => Err(Refusal::invalid(format!(
            "refresh must be 1, not \"{other}\"."
        ))),
    }
}

/// `POST …/files/refresh`: a snapshot, then the tree.
pub(crate) async fn refresh_files(
    State(state): State<Shared>,
    Path(id): Path<String>,
    _: body::NoInput,
) -> Result<Json<Value>, Refusal> {
    Ok(Json(capture(&state, &id).await?))
}

/// `POST …/files`: writes (overwriting) into the live workspace; the snapshot, and so
/// `GET …/files`, does not show them until the next one is taken.
pub(crate) async fn write_files(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
    body: Body,
) -> Result<Json<Value>, Refusal> {
    Query::parse(uri.query(), &[])?;
    let obj = body::object(body, state.config.body_limit, &["files"], false).await?;
    let written = files::parse_seed_files(obj.get("files").unwrap_or(&Value::Null), "files")?;
    workspace_ready(&state, &id).await?;
    let data: Vec<Value> = written
        .iter()
        .map(|(path, bytes)| files::file_entry(path, bytes.len()))
        .collect();
    with_session(&state, &id, |r| {
        r.files.extend(written);
        r.updated_at = unix_ms();
    })?;
    Ok(Json(json!({"object": "list", "data": data})))
}

/// `GET …/files/content?path=…`: one file of the last snapshot.
pub(crate) async fn file_content(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    let q = Query::parse(uri.query(), &["path"])?;
    let Some(raw) = q.get("path") else {
        return Err(Refusal::invalid("path is required."));
    };
    let path = files::workspace_path(raw)?;
    if files::is_withheld(&path) {
        return Err(Refusal::new(
            ErrorCode::PermissionDenied,
            format!("{path} is withheld: env files and key material are not readable."),
        ));
    }
    with_session(&state, &id, |r| {
        let snapshot = r.snapshot.as_ref()?;
        let bytes = snapshot.files.get(&path)?;
        Some(files::content(&path, snapshot.captured_at, bytes))
    })?
    .map(Json)
    .ok_or_else(|| Refusal::not_found(format!("No file {path} in the last snapshot.")))
}

fn session_tools(rec: &SessionRec) -> Value {
    let list: Vec<Value> = rec
        .agent
        .tools
        .iter()
        .flatten()
        .map(tools::redacted)
        .collect();
    json!({"object": "session.tools", "session_id": rec.id, "tools": list,
           "text": rec.tools_text})
}

/// `GET …/tools`.
pub(crate) async fn read_tools(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    Query::parse(uri.query(), &[])?;
    Ok(Json(with_session(&state, &id, |r| session_tools(r))?))
}

/// `PUT …/tools`: replaces the whole configuration (never merges) and restarts the bridge.
pub(crate) async fn put_tools(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
    body: Body,
) -> Result<Json<Value>, Refusal> {
    Query::parse(uri.query(), &[])?;
    let obj = body::object(body, state.config.body_limit, &["tools", "text"], false).await?;
    let Some(list) = obj.get("tools") else {
        return Err(Refusal::invalid(
            "tools is required: the configuration is replaced whole.",
        ));
    };
    let list = tools::validate(list)?;
    let text = match obj.get("text") {
        None | Some(Value::Null) => None,
        Some(t) => Some(tools::validate_text(t)?),
    };
    let restart = state.config.bridge_restart;
    Ok(Json(with_session(&state, &id, |r| {
        r.agent.tools = Some(list);
        r.tools_text = text;
        r.bridge_ready_at = Some(tokio::time::Instant::now() + restart);
        r.updated_at = unix_ms();
        session_tools(r)
    })?))
}

/// Subdomains the platform keeps for itself.
const RESERVED_SUBDOMAINS: [&str; 7] = ["api", "app", "www", "console", "docs", "status", "admin"];

fn check_subdomain(s: &str) -> Result<(), Refusal> {
    let valid_chars = s
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    // A DNS label: a hyphen only inside it.
    let hyphen_at_edge = s.starts_with('-') || s.ends_with('-');
    if !(2..=63).contains(&s.len()) || !valid_chars || hyphen_at_edge {
        return Err(Refusal::invalid(
            "subdomain must be 2 to 63 characters of a-z, 0-9 and -, not starting or \
             ending with -.",
        ));
    }
    if RESERVED_SUBDOMAINS.contains(&s) {
        return Err(Refusal::invalid(format!(
            "subdomain \"{s}\" is reserved by the platform."
        )));
    }
    Ok(())
}

/// The publish reply: its `url` is the public address (§6.9), unlike the session's
/// `preview.url`, which needs a token.
fn preview_object(rec: &SessionRec, subdomain: &str) -> Value {
    json!({"object": "preview", "subdomain": subdomain, "url": rec.preview.published_url,
           "published_url": rec.preview.published_url, "port": rec.preview.port})
}

/// `POST …/preview {"subdomain"?}`: 201 when published, 200 for an identical republish.
pub(crate) async fn publish_preview(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
    body: Body,
) -> Result<impl IntoResponse, Refusal> {
    Query::parse(uri.query(), &[])?;
    let obj = body::object(body, state.config.body_limit, &["subdomain"], true).await?;
    let wanted = match obj.get("subdomain") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            check_subdomain(s)?;
            Some(s.clone())
        }
        Some(_) => return Err(Refusal::invalid("subdomain must be a string.")),
    };
    let mut db = state.db();
    let rec = db.session(&id).ok_or_else(|| no_session(&id))?;
    if rec.preview.port.is_none() {
        return Err(Refusal::conflict(
            "Nothing is serving yet: the agent has not opened a preview port.",
        ));
    }
    let subdomain = wanted
        .or_else(|| rec.published_subdomain.clone())
        .unwrap_or_else(|| format!("s-{}", &id.chars().take(8).collect::<String>()));
    if let Some(current) = &rec.published_subdomain {
        if *current == subdomain {
            return Ok((StatusCode::OK, Json(preview_object(rec, current))));
        }
        return Err(Refusal::conflict(format!(
            "This preview is already published at \"{current}\"; unpublish it first."
        )));
    }
    let taken = db
        .sessions
        .values()
        .any(|other| other.id != id && other.published_subdomain.as_deref() == Some(&subdomain));
    if taken {
        return Err(Refusal::conflict(format!(
            "subdomain \"{subdomain}\" is taken."
        )));
    }
    let rec = db.session_mut(&id).ok_or_else(|| no_session(&id))?;
    rec.published_subdomain = Some(subdomain.clone());
    rec.preview.published_url = Some(format!("https://{subdomain}.gobare.dev"));
    rec.updated_at = unix_ms();
    Ok((StatusCode::CREATED, Json(preview_object(rec, &subdomain))))
}

/// `DELETE …/preview`: 200 also when nothing was published.
pub(crate) async fn unpublish_preview(
    State(state): State<Shared>,
    Path(id): Path<String>,
    _: body::NoInput,
) -> Result<Json<Value>, Refusal> {
    with_session(&state, &id, |r| {
        if r.published_subdomain.take().is_some() {
            r.preview.published_url = None;
            r.updated_at = unix_ms();
        }
    })?;
    Ok(reply::deleted("preview.deleted", &id))
}

/// `GET …/usage[?root=<same id>]`: sandbox time of the session, or of its whole tree.
/// `chargeable_seconds` counts only intervals that have ended (the reconciled part lags
/// the running one); nothing here needs review.
pub(crate) async fn usage(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Value>, Refusal> {
    let q = Query::parse(uri.query(), &["root"])?;
    let tree = match q.get("root") {
        None => false,
        Some(root) if root == id => true,
        Some(other) => {
            return Err(Refusal::invalid(format!(
                "root must be this session's own id, not \"{other}\"."
            )));
        }
    };
    if state.faults().usage_gone {
        return Err(no_session(&id));
    }
    let db = state.db();
    if db.session(&id).is_none() {
        return Err(no_session(&id));
    }
    let members: Vec<&SessionRec> = db
        .sessions
        .values()
        .filter(|r| {
            if tree {
                db.in_tree(&r.id, &id)
            } else {
                r.id == id
            }
        })
        .collect();
    let (mut sandbox, mut chargeable, mut intervals) = (0.0, 0.0, 0);
    for r in &members {
        let open = r.running_since.map(|since| since.elapsed());
        chargeable += r.ran_closed.as_secs_f64();
        sandbox += (r.ran_closed + open.unwrap_or_default()).as_secs_f64();
        intervals += r.closed_intervals + u32::from(open.is_some());
    }
    Ok(Json(json!({
        "object": "session.usage", "session_id": id,
        "scope": if tree { "tree" } else { "session" },
        "sessions": members.len(), "as_of": unix_ms(),
        "sandbox_seconds": sandbox.floor() as u64,
        "chargeable_seconds": chargeable.floor() as u64,
        "needs_review_intervals": 0, "intervals": intervals,
    })))
}
