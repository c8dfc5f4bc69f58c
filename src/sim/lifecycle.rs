//! The workspace lifecycle (§10): `unknown` → `running` (`sandbox.created`) ⇄ `paused`
//! (`sandbox.paused` after idling, `sandbox.resumed` on the next input) → `destroyed`
//! after its lifetime (no event; a running turn fails) → rebuilt on the next input.

use std::time::Duration;

use tokio::time::Instant;

use crate::api::model::{EventPayload, McpUnavailable, SandboxState, WorkspaceState};

use super::state::Shared;

/// Brings the workspace up for a turn, emitting the matching `sandbox.*` event. Returns
/// false if the session vanished.
pub async fn ensure_running(state: &Shared, session_id: &str) -> bool {
    let current = match state.store().session(session_id) {
        Some(rec) => rec.workspace.clone(),
        None => return false,
    };
    let (delay, rebuilt) = match current {
        WorkspaceState::Running => return true,
        WorkspaceState::Paused => (state.config.sandbox_wake, false),
        _ => (state.config.sandbox_boot, true),
    };
    if current == WorkspaceState::Destroyed
        && let Some(rec) = state.store().session_mut(session_id)
    {
        rec.workspace = WorkspaceState::Recovering;
    }
    tokio::time::sleep(delay).await;
    let generation = {
        let mut store = state.store();
        let Some(rec) = store.session_mut(session_id) else {
            return false;
        };
        rec.workspace = WorkspaceState::Running;
        rec.activity += 1;
        rec.running_since = Some(Instant::now());
        if rebuilt {
            rec.sandbox_generation += 1;
            rec.lived = Duration::ZERO;
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
        store.emit(
            session_id,
            if rebuilt {
                EventPayload::SandboxCreated(payload)
            } else {
                EventPayload::SandboxResumed(payload)
            },
        );
        // Optional MCP servers never answer in the simulator: they are skipped (§8 #22).
        for name in unreachable_mcp {
            store.emit(
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
    true
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
pub fn touch_idle(state: &Shared, session_id: &str) {
    let activity = {
        let mut store = state.store();
        let Some(rec) = store.session_mut(session_id) else {
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
        let mut store = state.store();
        let Some(rec) = store.session_mut(&session_id) else {
            return;
        };
        let idle = rec.activity == activity
            && rec.active.is_none()
            && rec.queue.is_empty()
            && rec.pending.is_empty()
            && rec.workspace == WorkspaceState::Running;
        if idle {
            rec.workspace = WorkspaceState::Paused;
            if let Some(since) = rec.running_since.take() {
                rec.lived += since.elapsed();
            }
            store.emit(
                &session_id,
                EventPayload::SandboxPaused(SandboxState {
                    state: WorkspaceState::Paused,
                }),
            );
        }
    });
}

/// Destroys the sandbox once it has *run* for `workspace_lifetime` (paused time excluded).
fn spawn_lifetime_timer(state: Shared, session_id: String, generation: u64) {
    tokio::spawn(async move {
        let lifetime = state.config.workspace_lifetime;
        let mut remaining = lifetime;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(remaining) => {}
                _ = state.shutdown.cancelled() => return,
            }
            let store = state.store();
            let Some(rec) = store.session(&session_id) else {
                return;
            };
            if rec.sandbox_generation != generation {
                return;
            }
            let lived = rec.lived + rec.running_since.map(|s| s.elapsed()).unwrap_or_default();
            if lived >= lifetime {
                break;
            }
            // Paused for a while: check again when the rest could have run out.
            remaining = (lifetime - lived).max(Duration::from_millis(5));
        }
        let mut store = state.store();
        let Some(rec) = store.session_mut(&session_id) else {
            return;
        };
        rec.running_since = None;
        rec.workspace = WorkspaceState::Destroyed;
        rec.updated_at = super::store::now_ms();
        if let Some(active) = rec.active.as_mut() {
            active.fail_reason =
                Some("The workspace reached its lifetime and was reclaimed.".into());
            active.cancel.cancel();
        }
    });
}
