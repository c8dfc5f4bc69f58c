//! Sessions: create, list, read, patch, delete, fork (§6.2, §6.3).

use std::collections::BTreeMap;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::body;
use super::query::{PAGING, Paging, Query};
use super::reply;
use crate::db::{CREATED_BY_TOKEN, SOURCE, SessionRec};
use crate::refusal::Refusal;
use crate::state::Shared;
use gobare_api::model::{CreateSession, Repo, Session, SessionStatus};

const APPROVAL_MODES: [&str; 4] = ["auto", "per_step", "read_only", "plan"];

pub(crate) async fn create(
    State(state): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<impl IntoResponse, Refusal> {
    Query::parse(uri.query(), &[])?;
    let req: CreateSession = body::json(body, state.config.create_body_limit).await?;
    let id = create_session(&state, req.clone())?;
    if let Some(input) = req.input {
        let sent = super::inputs::accept_message(&state, &id, input, &headers);
        if let Err(e) = sent {
            state.db().remove_session(&id);
            return Err(e);
        }
    }
    let session = read_session(&state, &id, true)?;
    Ok((StatusCode::CREATED, Json(session)))
}

/// Validates a create body and stores the session (without its `input`).
pub(crate) fn create_session(state: &Shared, req: CreateSession) -> Result<String, Refusal> {
    if state.db().sessions.len() >= state.config.max_sessions {
        return Err(Refusal::new(
            gobare_api::model::ErrorCode::ProjectLimitExceeded,
            format!(
                "This organization already runs {} sessions; delete one first.",
                state.config.max_sessions
            ),
        ));
    }
    super::org_refs::check(
        req.agent.as_ref().and_then(|a| a.id.as_deref()),
        req.environment.as_ref(),
    )?;
    let mut rec = SessionRec::new(uuid::Uuid::new_v4().to_string(), None);
    if let Some(parent) = &req.parent_session_id {
        if state.db().session(parent).is_none() {
            return Err(Refusal::not_found(format!("No session {parent}.")));
        }
        rec.parent_session_id = Some(parent.clone());
    }
    if let Some(agent) = req.agent {
        if let Some(mode) = &agent.approval_mode {
            check_approval_mode(mode)?;
            rec.agent.approval_mode = Some(mode.clone());
        }
        match (&agent.model, &agent.model_credential_id) {
            (Some(model), Some(cred)) => super::credentials::check(model, cred)?,
            (Some(model), None) => check_model(model)?,
            _ => {}
        }
        if let Some(model) = agent.model {
            rec.agent.model = Some(model);
        }
        if let Some(cred) = agent.model_credential_id {
            rec.agent.model_credential_id = Some(cred);
        }
        if let Some(instructions) = agent.instructions {
            check_instructions(&instructions)?;
            rec.agent.instructions = Some(instructions);
        }
        if let Some(rules) = agent.permission_rules {
            rec.agent.permission_rules = Some(crate::agent::permissions::validate_rules(
                &Value::Array(rules),
            )?);
        }
        if let Some(tools) = agent.tools {
            rec.agent.tools = Some(crate::agent::tools::validate(&Value::Array(tools))?);
        }
        if let Some(text) = agent.text {
            rec.tools_text = Some(crate::agent::tools::validate_text(&text)?);
        }
        rec.agent.id = agent.id;
    }
    if let Some(env) = req.environment {
        rec.repo = parse_environment(&env)?;
        if let Some(files) = env.get("files") {
            rec.seed_files = crate::workspace::files::parse_seed_files(files, "environment.files")?;
            rec.files = crate::workspace::repository::workspace(&rec.seed_files);
        }
    }
    if let Some(metadata) = req.metadata {
        let m: BTreeMap<String, Value> = metadata
            .into_iter()
            .map(|(k, v)| (k, Value::from(v)))
            .collect();
        check_metadata(&m)?;
        rec.metadata = Some(m);
    }
    rec.title = req.title;
    let id = rec.id.clone();
    state.db().insert_session(rec);
    Ok(id)
}

fn parse_environment(env: &Value) -> Result<Option<Repo>, Refusal> {
    let Some(obj) = env.as_object() else {
        return Err(Refusal::invalid("environment must be an object."));
    };
    for key in obj.keys() {
        if !["repo", "files", "profiles", "template_id", "branch"].contains(&key.as_str()) {
            return Err(Refusal::invalid(format!(
                "Unknown field \"environment.{key}\"."
            )));
        }
    }
    if obj.contains_key("branch") {
        return Err(Refusal::invalid(
            "environment.branch is not accepted; the branch is reported by the clone.",
        ));
    }
    match obj.get("repo") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(repo)) => {
            if repo.contains("://") || repo.split('/').count() != 2 {
                return Err(Refusal::invalid(
                    "environment.repo must be \"owner/name\", not a URL.",
                ));
            }
            Ok(Some(Repo {
                full_name: repo.clone(),
                branch: None,
                clone_error: None,
            }))
        }
        Some(_) => Err(Refusal::invalid("environment.repo must be a string.")),
    }
}

fn check_approval_mode(mode: &str) -> Result<(), Refusal> {
    if APPROVAL_MODES.contains(&mode) {
        Ok(())
    } else {
        Err(Refusal::invalid(format!(
            "Unknown approval_mode \"{mode}\"; use one of auto, per_step, read_only, plan."
        )))
    }
}

/// The models the default credential runs (`GET /v1/model-connectors`), what a create
/// naming a model but no credential is checked against.
pub(crate) const MODELS: [&str; 1] = ["MiniMax-M3"];

/// §6.2: an unknown model is a 400 naming it.
fn check_model(model: &str) -> Result<(), Refusal> {
    if MODELS.contains(&model) {
        return Ok(());
    }
    Err(Refusal::invalid(format!(
        "Unknown model \"{model}\": the chosen credential runs {}.",
        MODELS.join(", ")
    )))
}

fn check_instructions(s: &str) -> Result<(), Refusal> {
    if s.chars().count() > 32_000 {
        return Err(Refusal::invalid("instructions are over 32000 characters."));
    }
    Ok(())
}

fn check_metadata(m: &BTreeMap<String, Value>) -> Result<(), Refusal> {
    if m.len() > 16 {
        return Err(Refusal::invalid("metadata holds at most 16 keys."));
    }
    for (k, v) in m {
        let Some(v) = v.as_str() else {
            return Err(Refusal::invalid(format!("metadata.{k} must be a string.")));
        };
        if k.chars().count() > 64 || v.chars().count() > 512 {
            return Err(Refusal::invalid(
                "metadata keys are at most 64 characters and values at most 512.",
            ));
        }
    }
    Ok(())
}

fn read_session(state: &Shared, id: &str, with_tools: bool) -> Result<Session, Refusal> {
    state
        .db()
        .session(id)
        .map(|r| r.to_session(with_tools))
        .ok_or_else(|| Refusal::not_found(format!("No session {id}.")))
}

pub(crate) async fn read(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<Session>, Refusal> {
    Query::parse(uri.query(), &[])?;
    Ok(Json(read_session(&state, &id, true)?))
}

pub(crate) async fn list(State(state): State<Shared>, uri: Uri) -> Result<Json<Value>, Refusal> {
    let q = Query::parse(
        uri.query(),
        &[
            PAGING[0],
            PAGING[1],
            PAGING[2],
            "status",
            "source",
            "created_by_token",
            "metadata",
            "root",
        ],
    )?;
    let paging = Paging::from(&q)?;
    let status = match q.get("status") {
        None => None,
        Some(s @ ("idle" | "working" | "requires_action" | "failed")) => {
            Some(SessionStatus::from(s))
        }
        Some(other) => return Err(Refusal::invalid(format!("Unknown status \"{other}\"."))),
    };
    let source = match q.get("source") {
        None => None,
        Some(s @ ("api" | "console")) => Some(s.to_string()),
        Some(other) => return Err(Refusal::invalid(format!("Unknown source \"{other}\"."))),
    };
    let metadata = match q.get("metadata") {
        None => None,
        Some(kv) => match kv.split_once(':') {
            Some((k, v)) => Some((k.to_string(), v.to_string())),
            None => return Err(Refusal::invalid("metadata filter is \"key:value\".")),
        },
    };
    let db = state.db();
    if let Some(root) = q.get("root")
        && db.session(root).is_none()
    {
        return Err(Refusal::not_found(format!("No session {root}.")));
    }
    // Filtered on the records, and only the page made into sessions: the lock is held
    // for a page's work, not the whole organization's.
    let records: Vec<&SessionRec> = db
        .session_order
        .iter()
        .filter_map(|id| db.session(id))
        .filter(|r| q.get("root").is_none_or(|root| db.in_tree(&r.id, root)))
        .filter(|r| status.as_ref().is_none_or(|st| &r.status() == st))
        .filter(|_| source.as_deref().is_none_or(|src| src == SOURCE))
        .filter(|_| {
            q.get("created_by_token")
                .is_none_or(|t| t == "me" || t == CREATED_BY_TOKEN)
        })
        .filter(|r| {
            metadata.as_ref().is_none_or(|(k, v)| {
                r.metadata
                    .as_ref()
                    .and_then(|m| m.get(k))
                    .and_then(Value::as_str)
                    == Some(v.as_str())
            })
        })
        .collect();
    let first = paging.is_first();
    let (data, has_more, last_id) =
        paging.select(records, |r| r.id.as_str(), |r| r.to_session(false));
    drop(db);
    if state.faults().spoil_session_list {
        let data = super::spoiled_list::spoil(data, first);
        return Ok(Json(
            json!({"object": "list", "data": data, "has_more": has_more, "last_id": last_id}),
        ));
    }
    Ok(Json(
        json!({"object": "list", "data": data, "has_more": has_more, "last_id": last_id}),
    ))
}

pub(crate) async fn patch(
    State(state): State<Shared>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Session>, Refusal> {
    Query::parse(uri.query(), &[])?;
    state.faults().delay_session_write().await;
    if state.faults().read_only_sessions {
        return Err(crate::faults::Faults::missing_scope("sessions:write"));
    }
    let patch: Value = body::json(body, state.config.body_limit).await?;
    let Some(obj) = patch.as_object() else {
        return Err(Refusal::invalid("The body must be a JSON object."));
    };
    if obj.is_empty() {
        return Err(Refusal::invalid(
            "Nothing to change: send title, metadata or agent.",
        ));
    }
    for key in obj.keys() {
        if !["title", "metadata", "agent"].contains(&key.as_str()) {
            return Err(Refusal::invalid(format!(
                "Unknown field \"{key}\"; patchable: title, metadata, agent (approval_mode, \
                 instructions, permission_rules, model, model_credential_id go under agent)."
            )));
        }
    }
    let mut db = state.db();
    let rec = db
        .session_mut(&id)
        .ok_or_else(|| Refusal::not_found(format!("No session {id}.")))?;
    let mut next_title = rec.title.clone();
    let mut next_meta = rec.metadata.clone();
    let mut next_agent = rec.agent.clone();
    match obj.get("title") {
        None => {}
        Some(Value::Null) => next_title = None,
        Some(Value::String(t)) => next_title = Some(t.clone()),
        Some(_) => return Err(Refusal::invalid("title must be a string or null.")),
    }
    match obj.get("metadata") {
        None => {}
        Some(Value::Null) => next_meta = None,
        Some(Value::Object(m)) => {
            let m: BTreeMap<String, Value> = m.clone().into_iter().collect();
            check_metadata(&m)?;
            next_meta = Some(m);
        }
        Some(_) => return Err(Refusal::invalid("metadata must be an object or null.")),
    }
    if let Some(agent) = obj.get("agent") {
        let Some(agent) = agent.as_object() else {
            return Err(Refusal::invalid("agent must be an object."));
        };
        for (key, value) in agent {
            match (key.as_str(), value) {
                ("instructions", Value::Null) => next_agent.instructions = None,
                ("instructions", Value::String(s)) => {
                    check_instructions(s)?;
                    next_agent.instructions = (!s.is_empty()).then(|| s.clone());
                }
                ("approval_mode", Value::String(m)) => {
                    check_approval_mode(m)?;
                    next_agent.approval_mode = Some(m.clone());
                }
                ("permission_rules", rules) => {
                    next_agent.permission_rules =
                        Some(crate::agent::permissions::validate_rules(rules)?)
                }
                ("model", Value::String(m)) if agent.contains_key("model_credential_id") => {
                    next_agent.model = Some(m.clone())
                }
                ("model", _) => {
                    return Err(Refusal::invalid(
                        "agent.model must be a string sent with agent.model_credential_id.",
                    ));
                }
                ("model_credential_id", Value::String(c)) => {
                    next_agent.model_credential_id = Some(c.clone())
                }
                (k, _) => {
                    return Err(Refusal::invalid(format!(
                        "agent.{k} is unknown or has the wrong type."
                    )));
                }
            }
        }
    }
    if let Some(Value::String(cred)) = obj.get("agent").and_then(|a| a.get("model_credential_id")) {
        // The model sent, else the session's: the new credential must run it.
        let model = next_agent.model.clone().unwrap_or_default();
        super::credentials::check(&model, cred)?;
    }
    rec.title = next_title;
    rec.metadata = next_meta;
    rec.agent = next_agent;
    rec.updated_at = gobare_api::clock::unix_ms();
    let session = rec.to_session(true);
    drop(db);
    crate::lock::lock(&state.patches).push(crate::accepted_patches::AcceptedPatch {
        session_id: id,
        key: headers
            .get("idempotency-key")
            .and_then(|k| k.to_str().ok())
            .map(String::from),
        body: patch,
    });
    Ok(Json(session))
}

pub(crate) async fn delete(
    State(state): State<Shared>,
    Path(id): Path<String>,
    _: body::NoInput,
) -> Result<Json<Value>, Refusal> {
    state.faults().delay_session_write().await;
    if state.faults().read_only_sessions {
        return Err(crate::faults::Faults::missing_scope("sessions:write"));
    }
    let rec = state
        .db()
        .remove_session(&id)
        .ok_or_else(|| Refusal::not_found(format!("No session {id}.")))?;
    if let Some(active) = &rec.active {
        active.cancel.cancel();
    }
    Ok(reply::deleted("session.deleted", &id))
}

pub(crate) async fn fork(
    State(state): State<Shared>,
    Path(id): Path<String>,
    _: body::NoInput,
) -> Result<impl IntoResponse, Refusal> {
    state.faults().delay_session_write().await;
    if state.faults().read_only_sessions {
        return Err(crate::faults::Faults::missing_scope("sessions:write"));
    }
    if state.db().sessions.len() >= state.config.max_sessions {
        return Err(Refusal::new(
            gobare_api::model::ErrorCode::ProjectLimitExceeded,
            "The organization is at its concurrent-session ceiling; delete a session first.",
        ));
    }
    let mut db = state.db();
    let original = db
        .session(&id)
        .ok_or_else(|| Refusal::not_found(format!("No session {id}.")))?;
    if let Some(active) = &original.active {
        return Err(Refusal::conflict(format!(
            "Turn {} is running; fork when the session is idle.",
            active.turn_id
        )));
    }
    if !original.queue.is_empty() {
        return Err(Refusal::conflict(
            "Messages are queued; fork when the session is idle.",
        ));
    }
    let mut copy = SessionRec::new(uuid::Uuid::new_v4().to_string(), Some(id.clone()));
    copy.title = original.title.clone();
    copy.metadata = original.metadata.clone();
    copy.agent = original.agent.clone();
    copy.repo = original.repo.clone();
    copy.seed_files = original.seed_files.clone();
    copy.tools_text = original.tools_text.clone();
    if workspace_copied_from(original) {
        copy.files = original.files.clone();
        copy.snapshot = original.snapshot.clone();
    }
    let workspace_copied = workspace_copied_from(original);
    let mut session = copy.to_session(true);
    let copy_id = copy.id.clone();
    db.insert_session(copy);
    db.copy_items(&id, &copy_id);
    session.forked_from = Some(id);
    session.workspace_copied = Some(workspace_copied);
    Ok((StatusCode::CREATED, Json(session)))
}

/// A fork copies the workspace when there is one to copy.
fn workspace_copied_from(original: &SessionRec) -> bool {
    original.workspace != gobare_api::model::WorkspaceState::Unknown
}
