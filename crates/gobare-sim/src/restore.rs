//! What a restarted simulator does with the sessions its store gave back: the scripted
//! agent of a turn that was running (or queued) is gone, so that turn ends `failed` with
//! an `agent.error` saying why, rather than pretending the script goes on; what it waited
//! on lapses as at any turn's end (an expired function call also reports `tool.resolved`
//! unsuccessful, as its deadline would); a running workspace gets its idle timer again;
//! publications cut short are done.

use gobare_api::model::{
    ArtifactsState, ErrorCode, EventPayload, FunctionResolution, Message, RequiredActionKind,
    TurnRef, TurnStatus, WorkspaceState,
};

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
    let pending = std::mem::take(&mut rec.pending);
    let working: Vec<String> = rec
        .turns
        .iter()
        .filter(|t| t.status == TurnStatus::Working)
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
        crate::lifecycle::touch_idle(state, &id);
    }
}
