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
