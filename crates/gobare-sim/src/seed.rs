//! Fast bulk history for replay tests: a realistic mix of persisted events.

use serde_json::json;

use gobare_api::clock::unix_ms;
use gobare_api::model::{
    ArtifactsState, ChangeKind, EventPayload, FileChange, Text, TodoItem, Todos, ToolCall,
    ToolResult, Turn, TurnRef, TurnStatus,
};

use crate::db::{Db, hex_id};

/// Appends `n` persisted events to `session_id` in turn-shaped groups, each turn with its
/// record (a client reads the turn after `turn.ended`: it must exist, as on a real server).
pub(crate) fn seed(db: &mut Db, session_id: &str, n: usize) {
    let mut turn_id = hex_id("turn_", 16);
    let mut call_id = hex_id("call_", 8);
    for i in 0..n {
        let file = format!("/workspace/src/module_{}.rs", i % 37);
        let payload = match i % 8 {
            0 => {
                turn_id = hex_id("turn_", 16);
                if let Some(rec) = db.session_mut(session_id) {
                    rec.turns.push(settled_turn(session_id, &turn_id));
                }
                EventPayload::TurnStarted(TurnRef {
                    turn_id: turn_id.clone(),
                })
            }
            1 => EventPayload::AgentTodos(Todos {
                items: vec![
                    TodoItem {
                        label: "Read the module".into(),
                        status: "done".into(),
                    },
                    TodoItem {
                        label: "Apply the change".into(),
                        status: "pending".into(),
                    },
                ],
            }),
            2 => {
                call_id = hex_id("call_", 8);
                EventPayload::AgentToolCall(ToolCall {
                    tool_call_id: call_id.clone(),
                    tool_name: "read".into(),
                    args: json!({"path": file}),
                })
            }
            3 => EventPayload::AgentToolResult(ToolResult {
                tool_call_id: call_id.clone(),
                tool_name: "read".into(),
                is_error: false,
                cancelled: false,
                summary: format!("Read {} lines", 40 + i % 200),
                exit_code: None,
            }),
            4 => EventPayload::FileChanged(FileChange {
                path: file,
                change_type: ChangeKind::Modified,
                diff: Some(format!(
                    "@@ -{0},3 +{0},3 @@\n-    let total = 0;\n+    let mut total = 0;\n",
                    1 + i % 90
                )),
                tool_call_id: Some(call_id.clone()),
            }),
            5 => EventPayload::AgentMessage(Text {
                text: format!("Updated step {i}; moving on."),
            }),
            6 => EventPayload::UserMessage(Text {
                text: format!("Keep going ({i})."),
            }),
            _ => EventPayload::TurnEnded(TurnRef {
                turn_id: turn_id.clone(),
            }),
        };
        db.emit(session_id, payload);
    }
}

/// The record of a seeded turn: it completed, its artifacts are collected.
pub(crate) fn settled_turn(session_id: &str, turn_id: &str) -> Turn {
    let now = unix_ms();
    Turn {
        object: "turn".into(),
        id: turn_id.to_string(),
        session_id: session_id.to_string(),
        status: TurnStatus::Completed,
        created_at: now,
        started_at: Some(now),
        completed_at: Some(now),
        artifacts: Some(ArtifactsState::Ready),
        artifacts_skipped: Vec::new(),
        subagent_id: None,
        error: None,
    }
}

/// Events each turn of [`seed_turns`] has, from its user message to `turn.ended`.
pub(crate) const EVENTS_PER_SEEDED_TURN: usize = 12;
/// How long each turn of [`seed_turns`] ran, and how far apart they started.
pub(crate) const SEEDED_TURN_RUNS_MS: i64 = 3_000;
const SEEDED_TURN_EVERY_MS: i64 = 60_000;

/// Appends `turns` settled turns played long ago, the last of them completed at
/// `last_completed_at` (unix ms), one a minute before it: each asked by a user message,
/// reads and changes a file, answers, and completes in [`SEEDED_TURN_RUNS_MS`]. Events and
/// turn records carry those times, as history read back from a real server does.
pub(crate) fn seed_turns(db: &mut Db, session_id: &str, turns: usize, last_completed_at: i64) {
    let span = SEEDED_TURN_EVERY_MS * turns.saturating_sub(1) as i64;
    let first_created = last_completed_at - span - SEEDED_TURN_RUNS_MS - 200;
    for n in 0..turns {
        let created_at = first_created + SEEDED_TURN_EVERY_MS * n as i64;
        let started_at = created_at + 200;
        let completed_at = started_at + SEEDED_TURN_RUNS_MS;
        let turn_id = hex_id("turn_", 16);
        if let Some(rec) = db.session_mut(session_id) {
            rec.turns.push(Turn {
                created_at,
                started_at: Some(started_at),
                completed_at: Some(completed_at),
                ..settled_turn(session_id, &turn_id)
            });
        }
        let file = format!("/workspace/src/module_{}.rs", n % 37);
        let call = |k: usize| format!("call_{n:06x}{k}");
        let read = |k: usize| {
            EventPayload::AgentToolCall(ToolCall {
                tool_call_id: call(k),
                tool_name: "read".into(),
                args: json!({"path": file}),
            })
        };
        let done = |k: usize| {
            EventPayload::AgentToolResult(ToolResult {
                tool_call_id: call(k),
                tool_name: "read".into(),
                is_error: false,
                cancelled: false,
                summary: format!("Read {} lines", 40 + n % 200),
                exit_code: None,
            })
        };
        let turn = TurnRef {
            turn_id: turn_id.clone(),
        };
        let events = [
            EventPayload::UserMessage(Text {
                text: format!("Step {n}: tidy {file}."),
            }),
            EventPayload::TurnStarted(turn.clone()),
            EventPayload::AgentTodos(Todos {
                items: vec![TodoItem {
                    label: "Apply the change".into(),
                    status: "pending".into(),
                }],
            }),
            read(0),
            done(0),
            EventPayload::FileChanged(FileChange {
                path: file.clone(),
                change_type: ChangeKind::Modified,
                diff: Some("@@ -1,1 +1,1 @@\n-let total = 0;\n+let mut total = 0;\n".into()),
                tool_call_id: Some(call(0)),
            }),
            read(1),
            done(1),
            EventPayload::AgentTodos(Todos {
                items: vec![TodoItem {
                    label: "Apply the change".into(),
                    status: "done".into(),
                }],
            }),
            EventPayload::AgentMessage(Text {
                text: format!("Step {n} done."),
            }),
            EventPayload::AgentMessage(Text {
                text: "Nothing else to change.".into(),
            }),
            EventPayload::TurnEnded(turn),
        ];
        debug_assert_eq!(events.len(), EVENTS_PER_SEEDED_TURN);
        let step = SEEDED_TURN_RUNS_MS / events.len() as i64;
        for (k, payload) in events.into_iter().enumerate() {
            let at = match k {
                0 => created_at,
                k if k == EVENTS_PER_SEEDED_TURN - 1 => completed_at,
                k => started_at + step * (k as i64 - 1),
            };
            db.emit_at(session_id, payload, at);
        }
    }
}
