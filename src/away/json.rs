//! A digest as JSON, for `report --json`: one object per session, field names stable (a
//! script reads them), times in Unix ms.

use super::digest::{Digest, WorkspaceChange};
use serde_json::{Value, json};

/// One session's digest.
pub fn session(d: &Digest) -> Value {
    json!({
        "id": d.session_id,
        "title": d.title,
        "events": d.events,
        "turns": {
            "completed": d.turns_completed,
            "failed": d.turns_failed,
            "cancelled": d.turns_cancelled,
            "outcome_unread": d.turns_unread,
        },
        "failed": d.failed.iter().map(|f| json!({
            "turn_id": f.turn_id, "at": f.at, "reason": f.reason,
        })).collect::<Vec<_>>(),
        "decisions_waiting": d.decisions_waiting,
        "decisions_new": d.decisions_new,
        "decisions": d.decisions.iter().map(|x| json!({
            "call_id": x.call_id, "type": x.kind, "what": x.what,
            "asked_at": x.asked_at, "expires_at": x.expires_at,
            // A server's extreme `expires_at` is far off, not wrapped round.
            "expires_in_ms": x.expires_at.map(|at| at.saturating_sub(d.until_ms)),
        })).collect::<Vec<_>>(),
        "artifacts_added": d.artifacts_added,
        "artifacts": d.artifacts.iter().map(|a| json!({
            "path": a.path, "size_bytes": a.size_bytes, "at": a.at,
        })).collect::<Vec<_>>(),
        "workspace": d.workspace.iter().map(|(c, at)| json!({
            "change": change(*c), "at": at,
        })).collect::<Vec<_>>(),
        "workspace_now": d.workspace_now,
        "usage": { "turn_seconds": d.turn_seconds, "sandbox_seconds": d.sandbox_seconds },
    })
}

fn change(c: WorkspaceChange) -> Value {
    serde_json::to_value(c).unwrap_or(Value::Null)
}

/// The whole report: the window, the totals, and each session with something to say.
pub fn report(since_ms: i64, until_ms: i64, digests: &[Digest], cut: Option<&str>) -> Value {
    let sum = |f: fn(&Digest) -> u32| digests.iter().map(f).sum::<u32>();
    json!({
        "since": since_ms,
        "until": until_ms,
        "sessions_listed": digests.len(),
        "totals": {
            "turns_completed": sum(|d| d.turns_completed),
            "turns_failed": sum(|d| d.turns_failed),
            "turns_cancelled": sum(|d| d.turns_cancelled),
            "decisions_waiting": sum(|d| d.decisions_waiting),
            "artifacts_added": sum(|d| d.artifacts_added),
            "turn_seconds": digests.iter().map(|d| d.turn_seconds).sum::<u64>(),
        },
        "partial": cut,
        "sessions": digests.iter().filter(|d| !d.is_quiet()).map(session).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::away::digest::Decision;

    #[test]
    fn an_extreme_deadline_saturates_instead_of_wrapping() {
        let decision = |expires_at| Decision {
            call_id: "c1".into(),
            kind: "approval",
            what: None,
            asked_at: None,
            expires_at: Some(expires_at),
        };
        let d = Digest {
            session_id: "s1".into(),
            until_ms: 1_700_000_000_000,
            decisions: vec![
                decision(i64::MIN),
                decision(i64::MAX),
                decision(1_700_000_060_000),
            ],
            ..Digest::default()
        };
        let v = session(&d);
        let left: Vec<i64> = v["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["expires_in_ms"].as_i64().unwrap())
            .collect();
        assert_eq!(left, [i64::MIN, i64::MAX - 1_700_000_000_000, 60_000]);
    }
}
