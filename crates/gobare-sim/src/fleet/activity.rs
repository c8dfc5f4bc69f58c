//! `--fleet-activity`: a busy organization at a chosen event rate. Settled fleet sessions
//! (idle or failed, nothing running or queued) take turns running short synthetic turns,
//! one event per step, so the rows change as they would: a turn starts (`working`), streams
//! deltas, calls a tool and gets its result, waits on an approval (`requires_action`)
//! that is then granted, replies, publishes an artifact and ends (`idle`). Sessions the
//! scripted agent is running or that wait on a person are left alone.

use std::collections::HashMap;

use gobare_api::clock::unix_ms;
use gobare_api::model::{
    ApprovalRequest, ApprovalResolution, Artifact, ArtifactCreated, ChangeKind, Delta,
    EventPayload, FileChange, RequiredAction, RequiredActionKind, Text, ToolCall, ToolResult,
    TurnRef, TurnStatus,
};

use crate::agent;
use crate::db::{ActiveTurn, Db, Pending, hex_id};
use crate::state::Shared;

/// How often a batch of activity is emitted.
const TICK: std::time::Duration = std::time::Duration::from_millis(10);

/// Events in one synthetic turn (see [`Turn::step`]).
const STEPS: usize = 13;

/// A synthetic turn in progress on one session.
struct Turn {
    turn_id: String,
    call_id: String,
    step: usize,
    /// Which turn of this session it is: numbers the texts and files.
    n: u64,
}

/// Events emitted per hold of the database lock (one store transaction): requests and
/// streams wait for one chunk at most, even while the activity catches up after a stall.
const CHUNK: usize = 25;

/// Where the activity stands: which session is next, the turns in progress.
struct Activity {
    ids: Vec<String>,
    next: usize,
    turns: HashMap<String, Turn>,
    rounds: HashMap<String, u64>,
}

/// Emits `per_second` events across `ids` until the simulator shuts down.
pub(crate) async fn keep_busy(state: Shared, ids: Vec<String>, per_second: u32) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let started = tokio::time::Instant::now();
    let mut emitted: u64 = 0;
    let mut activity = Activity {
        ids,
        next: 0,
        turns: HashMap::new(),
        rounds: HashMap::new(),
    };
    loop {
        tokio::select! {
            _ = state.shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let due = (started.elapsed().as_secs_f64() * f64::from(per_second)) as u64;
        while emitted < due {
            let most = (due - emitted).min(CHUNK as u64) as usize;
            let mut starts = Vec::new();
            let done = state.db().batch(|db| {
                let done = activity.emit(db, most, &mut starts);
                db.prune_alongside(done);
                done
            });
            emitted += done as u64;
            for (id, turn) in starts {
                agent::spawn_worker(state.clone(), id, turn);
            }
            if done < most {
                // Every session is busy: the rate catches up once some settle.
                emitted = due;
            }
            tokio::task::yield_now().await;
        }
    }
}

impl Activity {
    /// Emits up to `most` events; returns how many (fewer when every session is busy).
    /// Queued turns that start when a synthetic one ends go to `starts`.
    fn emit(
        &mut self,
        db: &mut Db,
        most: usize,
        starts: &mut Vec<(String, crate::db::QueuedTurn)>,
    ) -> usize {
        let mut emitted = 0;
        let mut idle_tries = 0;
        while emitted < most && idle_tries < self.ids.len() {
            let id = &self.ids[self.next % self.ids.len()];
            self.next = self.next.wrapping_add(1);
            let turn = match self.turns.remove(id) {
                Some(turn) => Some(turn),
                None => {
                    let n = self.rounds.entry(id.clone()).or_insert(0);
                    *n += 1;
                    begin(db, id, *n)
                }
            };
            let Some(mut turn) = turn else {
                idle_tries += 1;
                continue;
            };
            idle_tries = 0;
            emitted += 1;
            if let Some(started) = step(db, id, &mut turn) {
                starts.push((id.clone(), started));
            } else if turn.step < STEPS {
                self.turns.insert(id.clone(), turn);
            }
        }
        emitted
    }
}

/// Starts a synthetic turn on a settled session: none when the session runs, queues or
/// waits on something, or is gone.
fn begin(db: &mut Db, session_id: &str, n: u64) -> Option<Turn> {
    let rec = db.session_mut(session_id)?;
    if rec.active.is_some() || !rec.queue.is_empty() || !rec.pending.is_empty() {
        return None;
    }
    let turn_id = Db::new_turn(rec);
    rec.active = Some(ActiveTurn::new(&turn_id));
    Some(Turn {
        turn_id,
        call_id: hex_id("call_", 8),
        step: 0,
        n,
    })
}

/// Emits the turn's next event and applies what it means to the session; returns the
/// queued turn that starts when this one ends with messages waiting.
fn step(db: &mut Db, session_id: &str, turn: &mut Turn) -> Option<crate::db::QueuedTurn> {
    let Some(rec) = db.session_mut(session_id) else {
        turn.step = STEPS;
        return None;
    };
    // A cancel (or anything that replaced the active turn) ends it now.
    let cancelled = rec
        .active
        .as_ref()
        .is_none_or(|a| a.turn_id != turn.turn_id || a.cancel.is_cancelled());
    let n = turn.n;
    let call = turn.call_id.clone();
    let payload = match turn.step {
        _ if cancelled => {
            turn.step = STEPS - 1;
            return finish(db, session_id, turn, TurnStatus::Cancelled);
        }
        0 => EventPayload::UserMessage(Text {
            text: format!("Keep the build green (round {n})"),
        }),
        1 => {
            if let Some(t) = rec.turn_mut(&turn.turn_id) {
                t.started_at = Some(unix_ms());
            }
            EventPayload::TurnStarted(TurnRef {
                turn_id: turn.turn_id.clone(),
            })
        }
        2..=4 => EventPayload::AgentText(Delta {
            delta: format!("Checking round {n}, part {} ", turn.step - 1),
        }),
        5 => EventPayload::AgentToolCall(ToolCall {
            tool_call_id: call.clone(),
            tool_name: "bash".into(),
            args: serde_json::json!({"command": "make check"}),
        }),
        6 => EventPayload::FileChanged(FileChange {
            path: format!("/workspace/src/file{}.rs", n % 50),
            change_type: ChangeKind::Modified,
            diff: None,
            tool_call_id: Some(call.clone()),
        }),
        7 => EventPayload::AgentToolResult(ToolResult {
            tool_call_id: call.clone(),
            tool_name: "bash".into(),
            is_error: false,
            cancelled: false,
            summary: "all checks pass (exit 0)".into(),
            exit_code: Some(0),
        }),
        8 => {
            turn.call_id = hex_id("call_", 8);
            let args = serde_json::json!({"command": "git push origin main"});
            rec.pending.push(Pending {
                action: RequiredAction {
                    kind: RequiredActionKind::Approval,
                    turn_id: turn.turn_id.clone(),
                    call_id: turn.call_id.clone(),
                    name: Some("bash".into()),
                    arguments: args.clone(),
                    created_at: Some(unix_ms()),
                    expires_at: None,
                },
                reply: None,
            });
            EventPayload::ApprovalRequested(ApprovalRequest {
                tool_call_id: turn.call_id.clone(),
                name: "bash".into(),
                args,
                sensitive: false,
            })
        }
        9 => {
            let before = rec.pending.len();
            rec.pending.retain(|p| p.action.call_id != turn.call_id);
            if rec.pending.len() == before {
                // Someone answered it already: nothing more to resolve.
                turn.step += 1;
                return step(db, session_id, turn);
            }
            db.resolve(session_id, &turn.call_id, crate::db::Resolved::Answered);
            EventPayload::ApprovalResolved(ApprovalResolution {
                tool_call_id: turn.call_id.clone(),
                approved: true,
                name: None,
                code: None,
                extra: Default::default(),
            })
        }
        10 => EventPayload::AgentMessage(Text {
            text: format!("Round {n}: the build is green and pushed."),
        }),
        11 => {
            let id = db.new_artifact_id();
            let path = format!("/workspace/outputs/round-{n}.md");
            let body = format!("# Round {n}\n\nAll checks pass.\n");
            let artifact = Artifact {
                object: "artifact".into(),
                id: id.clone(),
                session_id: session_id.to_string(),
                turn_id: turn.turn_id.clone(),
                path: path.clone(),
                size_bytes: body.len() as u64,
                content_type: Some("text/markdown".into()),
                created_at: Some(unix_ms()),
            };
            let size = body.len() as u64;
            db.add_artifact(&artifact, body.as_bytes());
            EventPayload::ArtifactCreated(ArtifactCreated {
                id,
                path,
                size_bytes: Some(size),
                turn_id: Some(turn.turn_id.clone()),
            })
        }
        _ => return finish(db, session_id, turn, TurnStatus::Completed),
    };
    db.emit(session_id, payload);
    turn.step += 1;
    None
}

/// Settles the turn (`turn.ended`) and starts the next queued message, if any.
fn finish(
    db: &mut Db,
    session_id: &str,
    turn: &mut Turn,
    status: TurnStatus,
) -> Option<crate::db::QueuedTurn> {
    turn.step = STEPS;
    let rec = db.session_mut(session_id)?;
    Db::settle_turn(rec, &turn.turn_id, status, None);
    if let Some(t) = rec.turn_mut(&turn.turn_id) {
        t.artifacts = Some(gobare_api::model::ArtifactsState::Ready);
    }
    rec.pending.retain(|p| p.action.turn_id != turn.turn_id);
    if rec
        .active
        .as_ref()
        .is_some_and(|a| a.turn_id == turn.turn_id)
    {
        rec.active = None;
    }
    db.emit(
        session_id,
        EventPayload::TurnEnded(TurnRef {
            turn_id: turn.turn_id.clone(),
        }),
    );
    agent::dequeue(db, session_id)
}
