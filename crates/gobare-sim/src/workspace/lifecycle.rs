//! The workspace lifecycle (§10): `unknown` → `running` (`sandbox.created`) ⇄ `paused`
//! (`sandbox.paused` after idling, `sandbox.resumed` on the next input) → `destroyed`
//! after its lifetime (no event; a running turn fails) → `recovering` on the next input
//! (no event) → `running` (`sandbox.created`) or `recovery_failed`
//! (`workspace.recovery_failed`). A workspace whose recovery failed is rebuilt again by
//! the input after that.

use std::time::Duration;

use tokio::time::Instant;

use gobare_api::clock::unix_ms;
use gobare_api::model::{
    ErrorCode, EventPayload, McpUnavailable, Message, SandboxState, WorkspaceState,
};

use crate::db::{SessionRec, TurnFailure};
use crate::state::Shared;
use crate::workspace::files::Snapshot;

/// What became of a workspace a turn needs.
#[derive(Debug, PartialEq)]
pub(crate) enum Readiness {
    Running,
    /// The rebuild gave up; `workspace.recovery_failed` carried this message.
    RecoveryFailed(String),
    /// The session was deleted meanwhile.
    SessionGone,
}

/// The message of a rebuild that gives up because of `Faults::fail_recovery`.
const RECOVERY_FAULT_MESSAGE: &str = "the workspace could not be restored from its snapshot";

/// Brings the workspace up for a turn, emitting the matching `sandbox.*` event, or
/// `workspace.recovery_failed` when a rebuild gives up.
pub(crate) async fn ensure_running(state: &Shared, session_id: &str) -> Readiness {
    let current = match state.db().session(session_id) {
        Some(rec) => rec.workspace.clone(),
        None => return Readiness::SessionGone,
    };
    let (delay, rebuilt) = match current {
        WorkspaceState::Running => return Readiness::Running,
        WorkspaceState::Paused => (state.config.sandbox_wake, false),
        _ => (state.config.sandbox_boot, true),
    };
    // Anything but a first boot restores an existing workspace, and that can fail.
    let recovery = rebuilt && current != WorkspaceState::Unknown;
    if recovery && let Some(rec) = state.db().session_mut(session_id) {
        rec.workspace = WorkspaceState::Recovering;
        rec.updated_at = unix_ms();
    }
    tokio::time::sleep(delay).await;
    let fault = state.faults().fail_recovery;
    let generation = {
        let mut db = state.db();
        let Some(rec) = db.session_mut(session_id) else {
            return Readiness::SessionGone;
        };
        if recovery {
            let scripted = rec.recovery_error_next.take();
            if let Some(message) = scripted.or(fault.then(|| RECOVERY_FAULT_MESSAGE.to_string())) {
                rec.workspace = WorkspaceState::RecoveryFailed;
                db.emit(
                    session_id,
                    EventPayload::WorkspaceRecoveryFailed(Message {
                        message: message.clone(),
                    }),
                );
                return Readiness::RecoveryFailed(message);
            }
        }
        rec.workspace = WorkspaceState::Running;
        rec.activity += 1;
        rec.running_since = Some(Instant::now());
        if rebuilt {
            rec.sandbox_generation += 1;
            rec.lived = Duration::ZERO;
            // Built from scratch: the repository and seeded files come back, live-written
            // ones do not.
            rec.files = crate::workspace::repository::workspace(&rec.seed_files);
        }
        let generation = rec.sandbox_generation;
        let unreachable_mcp = if rebuilt {
            optional_mcp_servers(rec.agent.tools.as_deref().unwrap_or_default())
        } else {
            Vec::new()
        };
        let payload = SandboxState {
            state: WorkspaceState::Running,
        };
        db.emit(
            session_id,
            if rebuilt {
                EventPayload::SandboxCreated(payload)
            } else {
                EventPayload::SandboxResumed(payload)
            },
        );
        // Optional MCP servers never answer in the simulator: they are skipped (§8 #22).
        for name in unreachable_mcp {
            db.emit(
                session_id,
                EventPayload::McpUnavailable(McpUnavailable {
                    name,
                    reason: "the server did not answer within 10s".into(),
                }),
            );
        }
        generation
    };
    if rebuilt {
        spawn_lifetime_timer(state.clone(), session_id.to_string(), generation);
    }
    Readiness::Running
}

/// Takes the sandbox away (no event: `destroyed` has none, §8) and fails the running
/// turn with `reason`. Its lifetime timer retires with the generation.
pub(crate) fn reclaim(rec: &mut SessionRec, reason: &str) {
    rec.stop_running();
    rec.workspace = WorkspaceState::Destroyed;
    rec.sandbox_generation += 1;
    rec.updated_at = unix_ms();
    if let Some(active) = rec.active.as_mut() {
        active.failure = Some(TurnFailure::new(ErrorCode::SandboxError, reason));
        active.cancel.cancel();
    }
}

fn optional_mcp_servers(tools: &[serde_json::Value]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| t["type"] == "mcp" && t["required"] != true)
        .map(|t| t["name"].as_str().unwrap_or("mcp").to_string())
        .collect()
}

/// Notes activity and arms the idle timer: if nothing happens for `idle_pause` and no turn
/// runs or waits, the workspace pauses.
pub(crate) fn touch_idle(state: &Shared, session_id: &str) {
    let activity = {
        let mut db = state.db();
        let Some(rec) = db.session_mut(session_id) else {
            return;
        };
        rec.activity += 1;
        rec.activity
    };
    let state = state.clone();
    let session_id = session_id.to_string();
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::time::sleep(state.config.idle_pause) => {}
            _ = state.shutdown.cancelled() => return,
        }
        let mut db = state.db();
        let Some(rec) = db.session_mut(&session_id) else {
            return;
        };
        let idle = rec.activity == activity
            && rec.active.is_none()
            && rec.queue.is_empty()
            && rec.pending.is_empty()
            && rec.workspace == WorkspaceState::Running;
        if idle {
            rec.workspace = WorkspaceState::Paused;
            rec.stop_running();
            // Pausing snapshots the workspace (§9.1): `GET …/files` now shows it.
            rec.snapshot = Some(Snapshot::of(&rec.files));
            db.emit(
                &session_id,
                EventPayload::SandboxPaused(SandboxState {
                    state: WorkspaceState::Paused,
                }),
            );
        }
    });
}

/// Destroys the sandbox once it has *run* for `workspace_lifetime` (paused time excluded),
/// unless its preview is published.
fn spawn_lifetime_timer(state: Shared, session_id: String, generation: u64) {
    tokio::spawn(async move {
        let lifetime = state.config.workspace_lifetime;
        let mut remaining = lifetime;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(remaining) => {}
                _ = state.shutdown.cancelled() => return,
            }
            let db = state.db();
            let Some(rec) = db.session(&session_id) else {
                return;
            };
            if rec.sandbox_generation != generation {
                return;
            }
            let lived = rec.lived + rec.running_since.map(|s| s.elapsed()).unwrap_or_default();
            if lived >= lifetime && rec.published_subdomain.is_some() {
                // A published preview's workspace pauses but is never reclaimed (§5):
                // look again a lifetime later, in case it was unpublished.
                remaining = lifetime.max(Duration::from_millis(5));
                continue;
            }
            if lived >= lifetime {
                break;
            }
            // Paused for a while: check again when the rest could have run out.
            remaining = (lifetime - lived).max(Duration::from_millis(5));
        }
        let mut db = state.db();
        let Some(rec) = db.session_mut(&session_id) else {
            return;
        };
        reclaim(rec, "The workspace reached its lifetime and was reclaimed.");
    });
}
