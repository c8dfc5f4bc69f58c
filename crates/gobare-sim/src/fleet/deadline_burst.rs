//! `--fleet-deadline-burst N`: a burst of function calls nearing their deadline, to try a
//! client's notifications against a flood. A few seconds after the start, `N` function
//! calls (`tool.required`) are asked across the settled fleet sessions, each expiring a
//! few minutes later, and left unanswered.

use std::time::Duration;

use gobare_api::clock::unix_ms;
use gobare_api::model::{EventPayload, FunctionCall, RequiredAction, RequiredActionKind};

use crate::db::{ActiveTurn, Db, Pending, hex_id};
use crate::state::Shared;

/// How long after the start the burst comes: a client opened with the simulator sees it.
const AFTER: Duration = Duration::from_secs(15);
/// How long each call waits before it expires: inside a usual deadline lead (10 min).
const EXPIRES_IN_MS: i64 = 4 * 60_000;

/// Asks `calls` function calls across `ids` (round-robin over the settled ones).
pub(crate) async fn burst(state: Shared, ids: Vec<String>, calls: usize) {
    tokio::select! {
        _ = state.shutdown.cancelled() => return,
        _ = tokio::time::sleep(AFTER) => {}
    }
    let asked = state.db().batch(|db| ask(db, &ids, calls));
    tracing::info!("deadline burst: {asked} function calls asked");
}

fn ask(db: &mut Db, ids: &[String], calls: usize) -> usize {
    // A turn of its own on each settled session holds its calls.
    let turns: Vec<(String, String)> = ids
        .iter()
        .filter_map(|id| {
            let rec = db.session_mut(id)?;
            if rec.active.is_some() || !rec.queue.is_empty() || !rec.pending.is_empty() {
                return None;
            }
            let turn_id = Db::new_turn(rec);
            rec.active = Some(ActiveTurn::new(&turn_id));
            Some((id.clone(), turn_id))
        })
        .collect();
    if turns.is_empty() {
        return 0;
    }
    let expires_at = unix_ms() + EXPIRES_IN_MS;
    for n in 0..calls {
        let (id, turn_id) = &turns[n % turns.len()];
        let call_id = hex_id("call_", 8);
        let arguments = serde_json::json!({"batch": n});
        if let Some(rec) = db.session_mut(id) {
            rec.pending.push(Pending {
                action: RequiredAction {
                    kind: RequiredActionKind::FunctionCall,
                    turn_id: turn_id.clone(),
                    call_id: call_id.clone(),
                    name: Some("ship_batch".into()),
                    arguments: arguments.clone(),
                    created_at: Some(unix_ms()),
                    expires_at: Some(expires_at),
                },
                reply: None,
            });
        }
        db.emit(
            id,
            EventPayload::ToolRequired(FunctionCall {
                tool_call_id: call_id,
                name: "ship_batch".into(),
                arguments,
            }),
        );
    }
    calls
}
