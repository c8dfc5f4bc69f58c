//! Sessions in the [`Store`]: a session's own fields as one JSON row; its turns as rows of
//! their own (one that will not change again leaves memory for its row; those that may
//! are rewritten on save); and, never kept in memory, its artifacts with their bytes, the
//! required actions no longer pending, and its items, each written as it happens.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::{ParkedTurn, QueuedTurn, Resolved, SessionRec};
use crate::store::Store;
use crate::workspace::files::{Files, Snapshot};
use crate::workspace::tree::Tree;
use gobare_api::model::{
    AgentInfo, Artifact, Item, Preview, Repo, RequiredAction, Turn, WorkspaceState,
};

/// A session's own fields as stored (what a restart gives back). Of the running turn, only
/// one parked on a required action is kept, with its queue: a restart goes on with it.
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
    /// Call id → `true` answered, `false` lapsed: where layout 2 kept them, read to move
    /// them to their own table.
    #[serde(default, skip_serializing)]
    resolved_calls: BTreeMap<String, bool>,
    sandbox_generation: u64,
    lived_ms: u64,
    running: bool,
    recovery_error_next: Option<String>,
    seed_files: BTreeMap<String, String>,
    /// The workspace's files that differ from the repository's (or that it lacks)...
    files: BTreeMap<String, String>,
    /// ...and the repository's files it no longer has.
    #[serde(default)]
    files_removed: Vec<String>,
    /// The snapshot as `files`, with its own removed paths.
    snapshot: Option<(i64, BTreeMap<String, String>)>,
    #[serde(default)]
    snapshot_removed: Vec<String>,
    tools_text: Option<Value>,
    published_subdomain: Option<String>,
    ran_closed_ms: u64,
    closed_intervals: u32,
    /// How long the open running interval had run (its time is in neither `lived_ms`
    /// nor `ran_closed_ms` yet): usage and the lifetime carry on from it after a restart.
    #[serde(default)]
    running_ms: u64,
    /// The active turn, when parked on one of `pending`.
    #[serde(default)]
    parked: Option<ParkedTurn>,
    #[serde(default)]
    queue: Vec<QueuedTurn>,
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
        // Kept as changes from the shared repository: a row holds what the session did.
        let repository = crate::workspace::repository::tree();
        let files = rec.files.changes_from(repository);
        let snapshot = rec
            .snapshot
            .as_ref()
            .map(|s| s.files.changes_from(repository));
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
            resolved_calls: BTreeMap::new(),
            sandbox_generation: rec.sandbox_generation,
            lived_ms: ms(rec.lived),
            running: rec.running_since.is_some(),
            recovery_error_next: rec.recovery_error_next.clone(),
            seed_files: encode(&rec.seed_files),
            files: encode(&files.0),
            files_removed: files.1,
            snapshot: rec
                .snapshot
                .as_ref()
                .zip(snapshot.as_ref())
                .map(|(s, (changed, _))| (s.captured_at, encode(changed))),
            snapshot_removed: snapshot.map(|(_, removed)| removed).unwrap_or_default(),
            tools_text: rec.tools_text.clone(),
            published_subdomain: rec.published_subdomain.clone(),
            ran_closed_ms: ms(rec.ran_closed),
            closed_intervals: rec.closed_intervals,
            running_ms: rec.running_since.map_or(0, |since| ms(since.elapsed())),
            parked: parked_turn(rec),
            queue: rec.queue.iter().cloned().collect(),
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
        rec.sandbox_generation = self.sandbox_generation;
        rec.lived = std::time::Duration::from_millis(self.lived_ms);
        if self.running {
            let now = tokio::time::Instant::now();
            let ran = std::time::Duration::from_millis(self.running_ms);
            rec.running_since = Some(now.checked_sub(ran).unwrap_or(now));
        }
        rec.recovery_error_next = self.recovery_error_next;
        rec.seed_files = decode(self.seed_files);
        let repository = crate::workspace::repository::tree();
        rec.files = Tree::with_changes(repository, decode(self.files), &self.files_removed);
        let snapshot_removed = self.snapshot_removed;
        rec.snapshot = self.snapshot.map(|(captured_at, files)| Snapshot {
            captured_at,
            files: Tree::with_changes(repository, decode(files), &snapshot_removed),
        });
        rec.tools_text = self.tools_text;
        rec.published_subdomain = self.published_subdomain;
        rec.ran_closed = std::time::Duration::from_millis(self.ran_closed_ms);
        rec.closed_intervals = self.closed_intervals;
        if let Some(parked) = self.parked {
            let mut active = crate::db::ActiveTurn::new(&parked.turn.turn_id);
            active.playing = Some(parked);
            rec.active = Some(active);
        }
        rec.queue = self.queue.into();
        rec
    }
}

/// The active turn when it waits on a required action of its own: a restart can take it
/// up at that step. A turn between steps cannot be: it is not kept.
fn parked_turn(rec: &SessionRec) -> Option<ParkedTurn> {
    let playing = rec.active.as_ref()?.playing.as_ref()?;
    rec.pending
        .iter()
        .any(|p| p.action.turn_id == playing.turn.turn_id)
        .then(|| playing.clone())
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

impl Store {
    /// Appends one item of `session_id`, of the history up to event `seq`.
    pub(crate) fn append_item(&self, session_id: &str, item: &Item, seq: u64) {
        let stored = self
            .conn
            .prepare_cached("INSERT INTO items (session_id, json, seq) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![session_id, to_json(item), seq as i64]));
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

    /// Writes the sessions that changed (`order` = their list positions) with the turns
    /// they hold, and forgets the removed ones, in one transaction: a killed simulator
    /// leaves the last save whole.
    pub(crate) fn save(
        &mut self,
        changed: &[(&SessionRec, usize)],
        removed: &[String],
        meta: &[(&str, Value)],
    ) -> rusqlite::Result<()> {
        let tx = self.conn.transaction()?;
        forget_sessions(&tx, removed)?;
        for (rec, ord) in changed {
            tx.prepare_cached(
                "INSERT INTO sessions (id, ord, json) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET ord = excluded.ord, json = excluded.json",
            )?
            .execute(params![
                rec.id,
                *ord as i64,
                to_json(&SavedSession::of(rec))
            ])?;
            for (i, turn) in rec.turns.iter().enumerate() {
                put_turn(&tx, turn, rec.stored_turns + i, None)?;
            }
        }
        for (key, value) in meta {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, json) VALUES (?1, ?2)",
                params![key, to_json(value)],
            )?;
        }
        tx.commit()
    }

    /// Forgets sessions and everything of theirs, at once (a temporary store's deletes).
    pub(crate) fn forget_sessions(&self, ids: &[String]) -> rusqlite::Result<()> {
        forget_sessions(&self.conn, ids)
    }

    /// Stores a turn at its place in its session's list (a turn that left memory), of the
    /// history up to event `seq`.
    pub(crate) fn put_turn(&self, turn: &Turn, ord: usize, seq: u64) {
        if let Err(e) = put_turn(&self.conn, turn, ord, Some(seq)) {
            tracing::error!("a turn was not stored: {e}");
        }
    }

    /// A session's stored turns before its `below`th, oldest first.
    #[cfg(test)]
    pub(crate) fn turns(&self, session_id: &str, below: usize) -> Vec<Turn> {
        let Ok(mut select) = self.conn.prepare_cached(
            "SELECT json FROM turns WHERE session_id = ?1 AND ord < ?2 ORDER BY ord",
        ) else {
            return Vec::new();
        };
        select
            .query_map(params![session_id, below as i64], |r| r.get::<_, String>(0))
            .map(|rows| {
                rows.filter_map(|j| serde_json::from_str(&j.ok()?).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A session's stored turns with `ord` in `range`, oldest first.
    pub(crate) fn turns_in(&self, session_id: &str, range: std::ops::Range<usize>) -> Vec<Turn> {
        let Ok(mut select) = self.conn.prepare_cached(
            "SELECT json FROM turns WHERE session_id = ?1 AND ord >= ?2 AND ord < ?3 ORDER BY ord",
        ) else {
            return Vec::new();
        };
        select
            .query_map(
                params![session_id, range.start as i64, range.end as i64],
                |r| r.get::<_, String>(0),
            )
            .map(|rows| {
                rows.filter_map(|j| serde_json::from_str(&j.ok()?).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Where a session's stored turn `turn_id` is in its list, when it is before `below`.
    pub(crate) fn turn_ord(&self, session_id: &str, turn_id: &str, below: usize) -> Option<usize> {
        let ord: i64 = self
            .conn
            .prepare_cached("SELECT ord FROM turns WHERE id = ?1 AND session_id = ?2 AND ord < ?3")
            .and_then(|mut s| s.query_row(params![turn_id, session_id, below as i64], |r| r.get(0)))
            .ok()?;
        usize::try_from(ord).ok()
    }

    /// One stored turn of a session.
    pub(crate) fn turn(&self, session_id: &str, turn_id: &str) -> Option<Turn> {
        let json: String = self
            .conn
            .prepare_cached("SELECT json FROM turns WHERE id = ?1 AND session_id = ?2")
            .and_then(|mut s| s.query_row(params![turn_id, session_id], |r| r.get(0)))
            .ok()?;
        serde_json::from_str(&json).ok()
    }

    /// Stores an artifact and its bytes, of the history up to event `seq`; `ord` orders a
    /// session's artifacts.
    pub(crate) fn put_artifact(&self, artifact: &Artifact, body: &[u8], ord: u64, seq: u64) {
        let stored = self
            .conn
            .prepare_cached(
                "INSERT OR REPLACE INTO artifacts (id, session_id, ord, json, body, seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    artifact.id,
                    artifact.session_id,
                    ord as i64,
                    to_json(artifact),
                    body,
                    seq as i64
                ])
            });
        if let Err(e) = stored {
            tracing::error!("an artifact was not stored: {e}");
        }
    }

    /// Whether an artifact by this id is stored (of any session).
    pub(crate) fn artifact_exists(&self, artifact_id: &str) -> bool {
        self.conn
            .prepare_cached("SELECT 1 FROM artifacts WHERE id = ?1")
            .and_then(|mut s| s.exists(params![artifact_id]))
            .unwrap_or(false)
    }

    /// The highest artifact `ord` stored (0 for none).
    pub(crate) fn max_artifact_ord(&self) -> u64 {
        self.conn
            .query_row("SELECT COALESCE(MAX(ord), 0) FROM artifacts", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_or(0, |n| n.max(0) as u64)
    }

    /// A session's artifacts (of one turn when given), oldest first.
    pub(crate) fn artifacts(&self, session_id: &str, turn_id: Option<&str>) -> Vec<Artifact> {
        let Ok(mut select) = self
            .conn
            .prepare_cached("SELECT json FROM artifacts WHERE session_id = ?1 ORDER BY ord")
        else {
            return Vec::new();
        };
        select
            .query_map(params![session_id], |r| r.get::<_, String>(0))
            .map(|rows| {
                rows.filter_map(|j| serde_json::from_str::<Artifact>(&j.ok()?).ok())
                    .filter(|a| turn_id.is_none_or(|t| a.turn_id == t))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// One artifact of a session.
    pub(crate) fn artifact(&self, session_id: &str, artifact_id: &str) -> Option<Artifact> {
        let json: String = self
            .conn
            .prepare_cached("SELECT json FROM artifacts WHERE id = ?1 AND session_id = ?2")
            .and_then(|mut s| s.query_row(params![artifact_id, session_id], |r| r.get(0)))
            .ok()?;
        serde_json::from_str(&json).ok()
    }

    /// One artifact's bytes (`None` also when its copy is gone).
    pub(crate) fn artifact_body(&self, session_id: &str, artifact_id: &str) -> Option<Vec<u8>> {
        self.conn
            .prepare_cached("SELECT body FROM artifacts WHERE id = ?1 AND session_id = ?2")
            .and_then(|mut s| {
                s.query_row(params![artifact_id, session_id], |r| {
                    r.get::<_, Option<Vec<u8>>>(0)
                })
            })
            .ok()
            .flatten()
    }

    /// Forgets one artifact (deleted through the API); `false` when there was none.
    pub(crate) fn delete_artifact(&self, session_id: &str, artifact_id: &str) -> bool {
        match self.conn.execute(
            "DELETE FROM artifacts WHERE id = ?1 AND session_id = ?2",
            params![artifact_id, session_id],
        ) {
            Ok(n) => n > 0,
            Err(e) => {
                tracing::error!("a deleted artifact stays stored: {e}");
                false
            }
        }
    }

    /// Notes how a required action stopped being pending.
    pub(crate) fn put_resolved(&self, session_id: &str, call_id: &str, how: Resolved) {
        if let Err(e) = put_resolved(&self.conn, session_id, call_id, how) {
            tracing::error!("a resolved action was not stored: {e}");
        }
    }

    /// How a required action of a session stopped being pending, if it did.
    pub(crate) fn resolved(&self, session_id: &str, call_id: &str) -> Option<Resolved> {
        let answered: bool = self
            .conn
            .prepare_cached("SELECT answered FROM resolved WHERE session_id = ?1 AND call_id = ?2")
            .and_then(|mut s| s.query_row(params![session_id, call_id], |r| r.get(0)))
            .ok()?;
        Some(if answered {
            Resolved::Answered
        } else {
            Resolved::Lapsed
        })
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

    /// Saves one `meta` value at once.
    pub(crate) fn put_meta(&self, key: &str, value: &Value) {
        if let Err(e) = self.conn.execute(
            "INSERT OR REPLACE INTO meta (key, json) VALUES (?1, ?2)",
            params![key, to_json(value)],
        ) {
            tracing::error!("{key} was not stored: {e}");
        }
    }

    /// Every saved session in list order, with the turns that may still change and the
    /// latest one (the rest stay in the store).
    pub(crate) fn load_sessions(&self) -> rusqlite::Result<Vec<SessionRec>> {
        let mut sessions = Vec::new();
        let mut select = self
            .conn
            .prepare("SELECT json FROM sessions ORDER BY ord")?;
        let rows = select.query_map([], |r| r.get::<_, String>(0))?;
        for json in rows {
            match serde_json::from_str::<SavedSession>(&json?) {
                Ok(mut saved) => {
                    for (call_id, answered) in std::mem::take(&mut saved.resolved_calls) {
                        let how = if answered {
                            Resolved::Answered
                        } else {
                            Resolved::Lapsed
                        };
                        put_resolved(&self.conn, &saved.id, &call_id, how)?;
                    }
                    sessions.push(saved.into_rec());
                }
                Err(e) => tracing::error!("a stored session is unreadable: {e}"),
            }
        }
        // The first turn that may still change (still working, or its artifacts not
        // published), else the latest: memory holds the turns from there on.
        let mut first_held = self.conn.prepare(
            "SELECT COALESCE(
                 (SELECT MIN(ord) FROM turns WHERE session_id = ?1
                    AND (json_extract(json, '$.status') = 'working'
                         OR COALESCE(json_extract(json, '$.artifacts'), 'pending') = 'pending')),
                 (SELECT MAX(ord) FROM turns WHERE session_id = ?1),
                 0)",
        )?;
        let mut turns = self
            .conn
            .prepare("SELECT json FROM turns WHERE session_id = ?1 AND ord >= ?2 ORDER BY ord")?;
        // Turns before the oldest stored one went with retention.
        let mut oldest_kept = self.conn.prepare(
            "SELECT MIN(COALESCE((SELECT MIN(ord) FROM turns WHERE session_id = ?1), ?2), ?2)",
        )?;
        for rec in &mut sessions {
            let from: i64 = first_held.query_row(params![rec.id], |r| r.get(0))?;
            for json in turns.query_map(params![rec.id, from], |r| r.get::<_, String>(0))? {
                if let Ok(turn) = serde_json::from_str::<Turn>(&json?) {
                    rec.turns.push(turn);
                }
            }
            rec.stored_turns = usize::try_from(from).unwrap_or(0);
            let oldest: i64 = oldest_kept.query_row(params![rec.id, from], |r| r.get(0))?;
            rec.pruned_turns = usize::try_from(oldest).unwrap_or(0);
        }
        Ok(sessions)
    }
}

/// `seq`: the event the turn's history ends at, once it left memory (`None` while it may
/// still change: retention never prunes it).
fn put_turn(
    conn: &rusqlite::Connection,
    turn: &Turn,
    ord: usize,
    seq: Option<u64>,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO turns (id, session_id, ord, json, seq)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        turn.id,
        turn.session_id,
        ord as i64,
        to_json(turn),
        seq.map(|s| s as i64)
    ])?;
    Ok(())
}

fn put_resolved(
    conn: &rusqlite::Connection,
    session_id: &str,
    call_id: &str,
    how: Resolved,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO resolved (session_id, call_id, answered) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![session_id, call_id, how == Resolved::Answered])?;
    Ok(())
}

fn forget_sessions(conn: &rusqlite::Connection, ids: &[String]) -> rusqlite::Result<()> {
    for id in ids {
        for table in ["sessions", "turns", "artifacts", "items", "resolved"] {
            let column = if table == "sessions" {
                "id"
            } else {
                "session_id"
            };
            conn.execute(
                &format!("DELETE FROM {table} WHERE {column} = ?1"),
                params![id],
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_2s_resolved_actions_move_to_their_own_table() {
        let store = Store::open_temp().unwrap();
        let rec = SessionRec::new("s".into(), None);
        let mut row = serde_json::to_value(SavedSession::of(&rec)).unwrap();
        row["resolved_calls"] = serde_json::json!({"call_a": true, "call_b": false});
        store
            .conn
            .execute(
                "INSERT INTO sessions (id, ord, json) VALUES ('s', 0, ?1)",
                params![row.to_string()],
            )
            .unwrap();
        assert_eq!(store.load_sessions().unwrap().len(), 1);
        assert_eq!(store.resolved("s", "call_a"), Some(Resolved::Answered));
        assert_eq!(store.resolved("s", "call_b"), Some(Resolved::Lapsed));
        assert_eq!(store.resolved("t", "call_a"), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_running_workspaces_time_so_far_is_kept_for_usage_and_its_lifetime() {
        let mut rec = SessionRec::new("s".into(), None);
        rec.lived = std::time::Duration::from_secs(100);
        rec.running_since = Some(tokio::time::Instant::now());
        tokio::time::advance(std::time::Duration::from_secs(30)).await;
        let back = SavedSession::of(&rec).into_rec();
        let open = back.running_since.expect("still running").elapsed();
        assert_eq!(open, std::time::Duration::from_secs(30));
        assert_eq!(back.lived, std::time::Duration::from_secs(100));
    }
}
