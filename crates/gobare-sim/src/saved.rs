//! Sessions in the [`Store`]: a session's own fields as one JSON row, its turns and
//! artifacts as rows of their own (upserted from the first one that may still change, so
//! a long session costs what changed, not its whole history), and items appended as they
//! happen (never kept in memory).

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::{Resolved, SessionRec};
use crate::files::{Files, Snapshot};
use crate::store::Store;
use gobare_api::model::{
    AgentInfo, Artifact, ArtifactsState, Item, Preview, Repo, RequiredAction, Turn, TurnStatus,
    WorkspaceState,
};

/// A session's own fields as stored (what a restart gives back; the running turn's
/// handles are not among them: a restart ends that turn).
#[derive(Serialize, Deserialize)]
struct SavedSession {
    id: String,
    title: Option<String>,
    metadata: Option<BTreeMap<String, Value>>,
    created_at: i64,
    updated_at: i64,
    parent_session_id: Option<String>,
    agent: AgentInfo,
    repo: Option<Repo>,
    preview: Preview,
    workspace: WorkspaceState,
    pending: Vec<RequiredAction>,
    /// Call id → `true` answered, `false` lapsed.
    resolved_calls: BTreeMap<String, bool>,
    sandbox_generation: u64,
    lived_ms: u64,
    running: bool,
    recovery_error_next: Option<String>,
    seed_files: BTreeMap<String, String>,
    files: BTreeMap<String, String>,
    snapshot: Option<(i64, BTreeMap<String, String>)>,
    tools_text: Option<Value>,
    published_subdomain: Option<String>,
    ran_closed_ms: u64,
    closed_intervals: u32,
}

fn encode(files: &Files) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(p, b)| (p.clone(), B64.encode(b)))
        .collect()
}

fn decode(files: BTreeMap<String, String>) -> Files {
    files
        .into_iter()
        .map(|(p, b)| (p, B64.decode(b).unwrap_or_default()))
        .collect()
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl SavedSession {
    fn of(rec: &SessionRec) -> Self {
        SavedSession {
            id: rec.id.clone(),
            title: rec.title.clone(),
            metadata: rec.metadata.clone(),
            created_at: rec.created_at(),
            updated_at: rec.updated_at,
            parent_session_id: rec.parent_session_id.clone(),
            agent: rec.agent.clone(),
            repo: rec.repo.clone(),
            preview: rec.preview.clone(),
            workspace: rec.workspace.clone(),
            pending: rec.pending.iter().map(|p| p.action.clone()).collect(),
            resolved_calls: rec
                .resolved_calls
                .iter()
                .map(|(k, v)| (k.clone(), *v == Resolved::Answered))
                .collect(),
            sandbox_generation: rec.sandbox_generation,
            lived_ms: ms(rec.lived),
            running: rec.running_since.is_some(),
            recovery_error_next: rec.recovery_error_next.clone(),
            seed_files: encode(&rec.seed_files),
            files: encode(&rec.files),
            snapshot: rec
                .snapshot
                .as_ref()
                .map(|s| (s.captured_at, encode(&s.files))),
            tools_text: rec.tools_text.clone(),
            published_subdomain: rec.published_subdomain.clone(),
            ran_closed_ms: ms(rec.ran_closed),
            closed_intervals: rec.closed_intervals,
        }
    }

    fn into_rec(self) -> SessionRec {
        let mut rec = SessionRec::new(self.id, self.parent_session_id);
        rec.set_created_at(self.created_at);
        rec.title = self.title;
        rec.metadata = self.metadata;
        rec.updated_at = self.updated_at;
        rec.agent = self.agent;
        rec.repo = self.repo;
        rec.preview = self.preview;
        rec.workspace = self.workspace;
        rec.pending = self
            .pending
            .into_iter()
            .map(|action| crate::db::Pending {
                action,
                reply: None,
            })
            .collect();
        rec.resolved_calls = self
            .resolved_calls
            .into_iter()
            .map(|(k, answered)| {
                let how = if answered {
                    Resolved::Answered
                } else {
                    Resolved::Lapsed
                };
                (k, how)
            })
            .collect();
        rec.sandbox_generation = self.sandbox_generation;
        rec.lived = std::time::Duration::from_millis(self.lived_ms);
        if self.running {
            rec.running_since = Some(tokio::time::Instant::now());
        }
        rec.recovery_error_next = self.recovery_error_next;
        rec.seed_files = decode(self.seed_files);
        rec.files = decode(self.files);
        rec.snapshot = self.snapshot.map(|(captured_at, files)| Snapshot {
            captured_at,
            files: decode(files),
        });
        rec.tools_text = self.tools_text;
        rec.published_subdomain = self.published_subdomain;
        rec.ran_closed = std::time::Duration::from_millis(self.ran_closed_ms);
        rec.closed_intervals = self.closed_intervals;
        rec
    }
}

/// A turn that will not change again (settled, its artifacts published).
fn is_final(turn: &Turn) -> bool {
    turn.status != TurnStatus::Working
        && turn
            .artifacts
            .as_ref()
            .is_some_and(|a| *a != ArtifactsState::Pending)
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

impl Store {
    /// Appends one item of `session_id`.
    pub(crate) fn append_item(&self, session_id: &str, item: &Item) {
        let stored = self
            .conn
            .prepare_cached("INSERT INTO items (session_id, json) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![session_id, to_json(item)]));
        if let Err(e) = stored {
            tracing::error!("an item was not stored: {e}");
        }
    }

    /// A session's items, oldest first.
    pub(crate) fn items(&self, session_id: &str) -> Vec<Item> {
        let Ok(mut select) = self
            .conn
            .prepare_cached("SELECT json FROM items WHERE session_id = ?1 ORDER BY n")
        else {
            return Vec::new();
        };
        select
            .query_map(params![session_id], |r| r.get::<_, String>(0))
            .map(|rows| {
                rows.filter_map(|j| serde_json::from_str(&j.ok()?).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How many items were ever stored (the next item's counter starts past it).
    pub(crate) fn item_count(&self) -> u64 {
        self.conn
            .query_row("SELECT COALESCE(MAX(n), 0) FROM items", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_or(0, |n| n.max(0) as u64)
    }

    /// Writes the sessions that changed (`order` = their list positions) and forgets the
    /// removed ones, in one transaction: a killed simulator leaves the last save whole.
    pub(crate) fn save(
        &mut self,
        changed: &mut [(&mut SessionRec, usize)],
        removed: &[String],
        meta: &[(&str, Value)],
    ) -> rusqlite::Result<()> {
        let tx = self.conn.transaction()?;
        for id in removed {
            for table in ["sessions", "turns", "artifacts", "items"] {
                let column = if table == "sessions" {
                    "id"
                } else {
                    "session_id"
                };
                tx.execute(
                    &format!("DELETE FROM {table} WHERE {column} = ?1"),
                    params![id],
                )?;
            }
        }
        for (rec, ord) in changed.iter_mut() {
            tx.prepare_cached(
                "INSERT INTO sessions (id, ord, json) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET ord = excluded.ord, json = excluded.json",
            )?
            .execute(params![
                rec.id,
                *ord as i64,
                to_json(&SavedSession::of(rec))
            ])?;
            let mut upsert_turn = tx.prepare_cached(
                "INSERT OR REPLACE INTO turns (id, session_id, ord, json) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let mut all_final = true;
            for (i, turn) in rec.turns.iter().enumerate().skip(rec.saved_turns) {
                upsert_turn.execute(params![turn.id, rec.id, i as i64, to_json(turn)])?;
                all_final &= is_final(turn);
                if all_final {
                    rec.saved_turns = i + 1;
                }
            }
            let mut upsert_artifact = tx.prepare_cached(
                "INSERT OR REPLACE INTO artifacts (id, session_id, ord, json, body)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (i, a) in rec.artifacts.iter().enumerate().skip(rec.saved_artifacts) {
                let body = rec.artifact_bodies.get(&a.id).map(|b| b.to_vec());
                upsert_artifact.execute(params![a.id, rec.id, i as i64, to_json(a), body])?;
            }
            rec.saved_artifacts = rec.artifacts.len();
        }
        for (key, value) in meta {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, json) VALUES (?1, ?2)",
                params![key, to_json(value)],
            )?;
        }
        tx.commit()
    }

    /// Forgets one artifact (deleted through the API).
    pub(crate) fn delete_artifact(&self, artifact_id: &str) {
        if let Err(e) = self
            .conn
            .execute("DELETE FROM artifacts WHERE id = ?1", params![artifact_id])
        {
            tracing::error!("a deleted artifact stays stored: {e}");
        }
    }

    /// One saved `meta` value.
    pub(crate) fn meta(&self, key: &str) -> Option<Value> {
        let json: String = self
            .conn
            .query_row("SELECT json FROM meta WHERE key = ?1", params![key], |r| {
                r.get(0)
            })
            .ok()?;
        serde_json::from_str(&json).ok()
    }

    /// Every saved session in list order, with its turns and artifacts.
    pub(crate) fn load_sessions(&self) -> rusqlite::Result<Vec<SessionRec>> {
        let mut sessions = Vec::new();
        let mut select = self
            .conn
            .prepare("SELECT json FROM sessions ORDER BY ord")?;
        let rows = select.query_map([], |r| r.get::<_, String>(0))?;
        for json in rows {
            match serde_json::from_str::<SavedSession>(&json?) {
                Ok(saved) => sessions.push(saved.into_rec()),
                Err(e) => tracing::error!("a stored session is unreadable: {e}"),
            }
        }
        let mut turns = self
            .conn
            .prepare("SELECT json FROM turns WHERE session_id = ?1 ORDER BY ord")?;
        let mut artifacts = self
            .conn
            .prepare("SELECT json, body FROM artifacts WHERE session_id = ?1 ORDER BY ord")?;
        for rec in &mut sessions {
            for json in turns.query_map(params![rec.id], |r| r.get::<_, String>(0))? {
                if let Ok(turn) = serde_json::from_str::<Turn>(&json?) {
                    rec.turns.push(turn);
                }
            }
            let rows = artifacts.query_map(params![rec.id], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<Vec<u8>>>(1)?))
            })?;
            for row in rows {
                let (json, body) = row?;
                if let Ok(a) = serde_json::from_str::<Artifact>(&json) {
                    if let Some(body) = body {
                        rec.artifact_bodies.insert(a.id.clone(), body.into());
                    }
                    rec.artifacts.push(a);
                }
            }
            rec.saved_turns = rec.turns.iter().take_while(|t| is_final(t)).count();
            rec.saved_artifacts = rec.artifacts.len();
        }
        Ok(sessions)
    }
}
