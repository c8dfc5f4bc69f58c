//! What a restarted simulator does with the sessions its store gave back: a turn parked on
//! a required action still waits on it (with its `expires_at`), and the scripted agent
//! takes it up at that step once answered, its queue behind it. A turn that was between
//! steps cannot be taken up, so it (and its queue) ends `failed` with an `agent.error`
//! saying why, rather than pretending the script goes on; what it waited on lapses as at
//! any turn's end (an expired function call also reports `tool.resolved` unsuccessful, as
//! its deadline would); a running workspace gets its idle timer again; publications cut
//! short are done.

use gobare_api::model::{
    ArtifactsState, ErrorCode, EventPayload, FunctionResolution, Message, RequiredActionKind,
    TurnRef, TurnStatus, WorkspaceState,
};

use tokio::sync::oneshot;

use crate::agent;
use crate::db::{Db, Resolved, TurnFailure};
use crate::state::Shared;

/// The error of a turn the restart ended.
const STOPPED: &str = "The simulator stopped while this turn ran; it was restarted without it.";

pub(crate) fn end_interrupted(db: &mut Db) {
    let ids = db.session_order.clone();
    for id in ids {
        end_in_session(db, &id);
    }
}

fn end_in_session(db: &mut Db, id: &str) {
    let Some(rec) = db.session_mut(id) else {
        return;
    };
    let parked = rec.active.as_ref().map(|a| a.turn_id.clone());
    if parked.is_none() {
        rec.queue.clear();
    }
    let waiting: Vec<String> = parked
        .iter()
        .cloned()
        .chain(rec.queue.iter().map(|q| q.turn_id.clone()))
        .collect();
    let (kept, pending): (Vec<_>, Vec<_>) = std::mem::take(&mut rec.pending)
        .into_iter()
        .partition(|p| Some(&p.action.turn_id) == parked.as_ref());
    rec.pending = kept;
    let working: Vec<String> = rec
        .turns
        .iter()
        .filter(|t| t.status == TurnStatus::Working && !waiting.contains(&t.id))
        .map(|t| t.id.clone())
        .collect();
    let error = TurnFailure::new(ErrorCode::InternalError, STOPPED).to_value();
    for turn in &working {
        Db::settle_turn(rec, turn, TurnStatus::Failed, Some(error.clone()));
    }
    for turn in rec.turns.iter_mut() {
        if turn.artifacts == Some(ArtifactsState::Pending) {
            turn.artifacts = Some(ArtifactsState::Ready);
        }
    }
    for p in &pending {
        db.resolve(id, &p.action.call_id, Resolved::Lapsed);
    }
    for p in pending {
        if p.action.kind == RequiredActionKind::FunctionCall {
            db.emit(
                id,
                EventPayload::ToolResolved(FunctionResolution {
                    tool_call_id: p.action.call_id,
                    name: p.action.name.unwrap_or_default(),
                    success: false,
                }),
            );
        }
    }
    for turn in working {
        db.emit(
            id,
            EventPayload::AgentError(Message {
                message: STOPPED.into(),
            }),
        );
        db.emit(id, EventPayload::TurnEnded(TurnRef { turn_id: turn }));
    }
}

/// Gives each parked turn's actions their reply channels again and the agent that takes
/// the turn up where it waits.
pub(crate) fn resume_parked(state: &Shared) {
    let mut resumed = Vec::new();
    {
        let mut db = state.db();
        let ids = db.session_order.clone();
        for id in ids {
            let Some(rec) = db.session_mut(&id) else {
                continue;
            };
            let Some(parked) = rec.active.as_ref().and_then(|a| a.playing.clone()) else {
                continue;
            };
            let Some(pending) = rec
                .pending
                .iter_mut()
                .find(|p| p.action.turn_id == parked.turn.turn_id)
            else {
                continue;
            };
            let (tx, rx) = oneshot::channel();
            pending.reply = Some(tx);
            let waiting = agent::Waiting {
                step: parked.step,
                call_id: pending.action.call_id.clone(),
                expires_at: pending.action.expires_at,
                reply: rx,
            };
            resumed.push((id, parked.turn, waiting));
        }
    }
    for (id, turn, waiting) in resumed {
        agent::resume_worker(state.clone(), id, turn, waiting);
    }
}

/// Arms the idle timer of every running workspace (the timers died with the last run).
pub(crate) fn rearm_idle(state: &Shared) {
    let running: Vec<String> = {
        let db = state.db();
        db.session_order
            .iter()
            .filter(|id| {
                db.session(id)
                    .is_some_and(|r| r.workspace == WorkspaceState::Running)
            })
            .cloned()
            .collect()
    };
    for id in running {
        crate::workspace::lifecycle::touch_idle(state, &id);
    }
}
