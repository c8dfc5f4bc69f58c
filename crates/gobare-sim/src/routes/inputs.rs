//! `POST /v1/sessions/{id}/events`: the seven `input.*` types (§6.4).

use axum::Json;
use axum::body::Body;
use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::body;
use super::query::Query;
use crate::agent;
use crate::db::{ActiveTurn, Answer, Db, QueuedTurn, Resolved};
use crate::layers::scopes::{self, TokenScopes};
use crate::lock::lock;
use crate::refusal::Refusal;
use crate::state::{AcceptedAnswer, AcceptedInput, AcceptedMessage, Shared};
use crate::{layers::idempotency, workspace::lifecycle};
use gobare_api::model::{
    ApprovalResolution, ErrorCode, EventPayload, FunctionResolution, Input, InputBody,
    QuestionAnswer, QueuedMessage, RequiredActionKind, Text, WorkspaceState,
};

pub(crate) async fn post(
    State(state): State<Shared>,
    Path(id): Path<String>,
    scopes_held: Option<Extension<TokenScopes>>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<impl IntoResponse, Refusal> {
    Query::parse(uri.query(), &[])?;
    // Parse as a value first so "two events" is told apart from a bad event.
    let raw: Value = body::json(body, state.config.body_limit).await?;
    if let Some(events) = raw.get("events").and_then(Value::as_array)
        && events.len() != 1
    {
        return Err(Refusal::invalid(format!(
            "events must hold exactly one event, not {}.",
            events.len()
        )));
    }
    let parsed: InputBody = serde_json::from_value(raw)
        .map_err(|e| Refusal::invalid(format!("The event is not valid: {e}.")))?;
    let Some(input) = parsed.events.into_iter().next() else {
        return Err(Refusal::invalid("events must hold exactly one event."));
    };
    if let Some(Extension(held)) = &scopes_held {
        held.require(scopes::for_input(&input))?;
    }
    if state.db().session(&id).is_none() {
        return Err(Refusal::not_found(format!("No session {id}.")));
    }
    if let Some(secs) = state.take_send_refusal() {
        return Err(Refusal::new(
            ErrorCode::SandboxUnavailable,
            "The workspace is unreachable right now.",
        )
        .retry_after(secs));
    }
    let answer_input = matches!(
        input,
        Input::ToolResult { .. } | Input::Approval { .. } | Input::QuestionAnswer { .. }
    )
    .then(|| input.clone());
    let taken = AcceptedInput {
        session_id: id.clone(),
        key: crate::layers::idempotency::key_of(&headers).ok().flatten(),
        input: input.clone(),
    };
    let reply = match input {
        Input::Message { content } => accept_message(&state, &id, content.text(), &headers)?,
        Input::Context { content } => context(&state, &id, content.text())?,
        Input::Steer { content } => steer(&state, &id, content.text())?,
        Input::Cancel {} => cancel(&state, &id),
        Input::ToolResult {
            turn_id,
            call_id,
            success,
            output,
            error,
        } => {
            let output = match (success, output, error) {
                (true, Some(o), _) => o,
                (false, _, Some(e)) => e,
                (true, None, _) => {
                    return Err(Refusal::invalid(
                        "output (a string) is required when success is true.",
                    ));
                }
                (false, _, None) => {
                    return Err(Refusal::invalid(
                        "error (a string) is required when success is false.",
                    ));
                }
            };
            answer(
                &state,
                &id,
                "input.tool_result",
                &call_id,
                Some(&turn_id),
                Answer::FunctionResult { success, output },
            )?
        }
        Input::Approval { call_id, approved } => answer(
            &state,
            &id,
            "input.approval",
            &call_id,
            None,
            Answer::Approval { approved },
        )?,
        Input::QuestionAnswer {
            call_id,
            answer: text,
        } => {
            if text.trim().is_empty() {
                return Err(Refusal::invalid("answer must be a non-empty string."));
            }
            answer(
                &state,
                &id,
                "input.question_answer",
                &call_id,
                None,
                Answer::Question { answer: text },
            )?
        }
    };
    lock(&state.inputs).push(taken);
    if let Some(input) = answer_input {
        lock(&state.answers).push(AcceptedAnswer {
            session_id: id.clone(),
            input,
            outcome: reply["outcome"].as_str().unwrap_or_default().to_string(),
        });
    }
    let delay = state.faults().delay_send_accept_ms;
    if delay > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    }
    Ok((StatusCode::ACCEPTED, Json(reply)))
}

/// Starts a turn, or queues it behind the running one. The turn exists from acceptance
/// (`started_at: null` while it waits).
pub(crate) fn accept_message(
    state: &Shared,
    session_id: &str,
    text: String,
    headers: &HeaderMap,
) -> Result<Value, Refusal> {
    if text.trim().is_empty() {
        return Err(Refusal::invalid("content must not be empty."));
    }
    let mut db = state.db();
    let rec = db
        .session_mut(session_id)
        .ok_or_else(|| Refusal::not_found(format!("No session {session_id}.")))?;
    let picked = state
        .scenarios
        .pick(&text, &state.config.scenario, rec.turn_count());
    let busy = rec.active.is_some() || !rec.queue.is_empty();
    if busy && rec.queue.len() >= state.config.queue_cap {
        return Err(Refusal::new(
            gobare_api::model::ErrorCode::QueueFull,
            format!(
                "This session already holds {} queued messages; wait for one to start.",
                rec.queue.len()
            ),
        )
        .retry_after(5));
    }
    let turn_id = Db::new_turn(rec);
    let key = idempotency::key_of(headers).ok().flatten();
    lock(&state.accepted_messages).push(AcceptedMessage {
        key: key.clone(),
        text: text.clone(),
    });
    let queued = QueuedTurn {
        turn_id: turn_id.clone(),
        text: text.clone(),
        scenario: picked.name,
        picked_by: picked.by,
    };
    let position = if busy {
        rec.queue.push_back(queued);
        let position = rec.queue.len() as u32;
        db.emit(
            session_id,
            EventPayload::MessageQueued(QueuedMessage {
                text,
                position: Some(position),
            }),
        );
        Some(position)
    } else {
        rec.active = Some(ActiveTurn::new(&turn_id));
        rec.activity += 1;
        db.emit(session_id, EventPayload::UserMessage(Text { text }));
        drop(db);
        agent::spawn_worker(state.clone(), session_id.to_string(), queued);
        None
    };
    if let Some(key) = key {
        *lock(&state.messages_by_key).entry(key).or_insert(0) += 1;
    }
    Ok(json!({
        "object": "input.accepted", "session_id": session_id, "type": "input.message",
        "queued": position.is_some(), "queue_position": position,
    }))
}

fn context(state: &Shared, session_id: &str, text: String) -> Result<Value, Refusal> {
    if text.trim().is_empty() {
        return Err(Refusal::invalid("content must not be empty."));
    }
    let mut db = state.db();
    let Some(rec) = db.session(session_id) else {
        return Err(Refusal::not_found(format!("No session {session_id}.")));
    };
    let delivered = rec.workspace == WorkspaceState::Running && rec.active.is_some();
    db.emit(session_id, EventPayload::UserContext(Text { text }));
    Ok(json!({
        "object": "input.accepted", "session_id": session_id, "type": "input.context",
        "delivered": delivered,
    }))
}

fn steer(state: &Shared, session_id: &str, text: String) -> Result<Value, Refusal> {
    if text.trim().is_empty() {
        return Err(Refusal::invalid("content must not be empty."));
    }
    let mut db = state.db();
    let Some(active) = db.session_mut(session_id).and_then(|r| r.active.as_mut()) else {
        return Err(Refusal::conflict(
            "Nothing is running to steer; send it as a message instead.",
        ));
    };
    active.steers.push(text.clone());
    db.emit(session_id, EventPayload::UserMessage(Text { text }));
    Ok(json!({
        "object": "input.accepted", "session_id": session_id, "type": "input.steer",
    }))
}

fn cancel(state: &Shared, session_id: &str) -> Value {
    if let Some(active) = state
        .db()
        .session(session_id)
        .and_then(|r| r.active.as_ref())
    {
        active.cancel.cancel();
    }
    json!({"object": "input.accepted", "session_id": session_id, "type": "input.cancel"})
}

/// Answers a required action. Outcomes: `accepted`, `already_resolved` (answered before),
/// `no_longer_pending` (expired, or its turn ended without it), `not_delivered` (function
/// calls, when configured: the sandbox "restarted"); unknown call → 404; wrong kind → 400.
fn answer(
    state: &Shared,
    session_id: &str,
    input_type: &str,
    call_id: &str,
    turn_id: Option<&str>,
    answer: Answer,
) -> Result<Value, Refusal> {
    let reply = |outcome: &str| {
        json!({"object": "input.accepted", "session_id": session_id, "type": input_type,
               "outcome": outcome})
    };
    let mut db = state.db();
    let Some(rec) = db.session_mut(session_id) else {
        return Err(Refusal::not_found(format!("No session {session_id}.")));
    };
    let Some(index) = rec.pending.iter().position(|p| p.action.call_id == call_id) else {
        if let Some(resolved) = db.resolution(session_id, call_id) {
            return Ok(reply(resolved.late_outcome()));
        }
        return Err(Refusal::not_found(format!(
            "No pending required action with call_id {call_id}."
        )));
    };
    let kind = rec.pending[index].action.kind.clone();
    let expected = match &answer {
        Answer::FunctionResult { .. } => RequiredActionKind::FunctionCall,
        Answer::Approval { .. } => RequiredActionKind::Approval,
        Answer::Question { .. } => RequiredActionKind::Question,
    };
    if kind != expected {
        return Err(Refusal::invalid(format!(
            "call_id {call_id} is a {} required action, not a {}; answer it with its own input type.",
            kind.as_str(),
            expected.as_str()
        )));
    }
    if let Some(turn_id) = turn_id
        && rec.pending[index].action.turn_id != turn_id
    {
        return Err(Refusal::not_found(format!(
            "No pending call {call_id} in turn {turn_id}."
        )));
    }
    let mut pending = rec.pending.remove(index);
    let name = pending.action.name.clone().unwrap_or_default();
    let not_delivered =
        kind == RequiredActionKind::FunctionCall && state.config.tool_results_not_delivered;
    let event = match &answer {
        Answer::FunctionResult { success, .. } => EventPayload::ToolResolved(FunctionResolution {
            tool_call_id: call_id.to_string(),
            name: name.clone(),
            success: *success,
        }),
        Answer::Approval { approved } => EventPayload::ApprovalResolved(ApprovalResolution {
            tool_call_id: call_id.to_string(),
            approved: *approved,
            name: None,
            code: (!approved).then(|| "aborted".to_string()),
            extra: Default::default(),
        }),
        Answer::Question { answer } => EventPayload::QuestionAnswered(QuestionAnswer {
            tool_call_id: call_id.to_string(),
            answer: answer.clone(),
        }),
    };
    let outcome = if not_delivered {
        // Recorded, but the sandbox no longer holds the call: the turn never resumes.
        if let Some(tx) = pending.reply.take() {
            rec.orphaned.push(tx);
        }
        "not_delivered"
    } else {
        if let Some(tx) = pending.reply.take() {
            let _ = tx.send(answer);
        }
        "accepted"
    };
    rec.activity += 1;
    db.resolve(session_id, call_id, Resolved::Answered);
    db.emit(session_id, event);
    drop(db);
    lifecycle::touch_idle(state, session_id);
    Ok(reply(outcome))
}
