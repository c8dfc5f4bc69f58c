//! The persisted event log on disk: an SQLite file (rusqlite's bundled library: kept,
//! crash-safe, queried by `seq` through its primary key) under the user's cache directory,
//! so a long run's history costs disk, not memory. The file is this run's own and goes
//! when the simulator does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, params};

/// One rendered event, shared by the log and every stream.
#[derive(Debug)]
pub(crate) struct Frame {
    pub(crate) seq: Option<u64>,
    pub(crate) kind: String,
    pub(crate) session_id: String,
    /// The compact envelope JSON (the `data:` line).
    pub(crate) json: String,
}

/// The layout of the file; a file saying another is never read as this one.
const SCHEMA_VERSION: i64 = 1;

pub(crate) struct EventStore {
    conn: Connection,
    /// Removes the file when the store goes.
    _file: tempfile::TempPath,
}

/// Where the stores live: `$XDG_CACHE_HOME/gobare-tui/sim` (not `/tmp`, which is memory
/// on many systems), else the system's temporary directory.
fn store_dir() -> PathBuf {
    directories::BaseDirs::new()
        .map(|d| d.cache_dir().join("gobare-tui").join("sim"))
        .unwrap_or_else(std::env::temp_dir)
}

impl EventStore {
    /// A fresh store in [`store_dir`].
    pub(crate) fn open_fresh() -> std::io::Result<EventStore> {
        let dir = store_dir();
        std::fs::create_dir_all(&dir)?;
        let file = tempfile::Builder::new()
            .prefix("events-")
            .suffix(".sqlite")
            .tempfile_in(&dir)?
            .into_temp_path();
        let conn = open_at(&file).map_err(std::io::Error::other)?;
        Ok(EventStore { conn, _file: file })
    }

    /// Appends one persisted frame.
    pub(crate) fn append(&self, frame: &Frame) {
        let mut insert = match self.conn.prepare_cached(
            "INSERT INTO events (seq, session_id, kind, json) VALUES (?1, ?2, ?3, ?4)",
        ) {
            Ok(stmt) => stmt,
            Err(e) => return tracing::error!("the event store refuses writes: {e}"),
        };
        let seq = frame.seq.map(|s| s as i64);
        if let Err(e) = insert.execute(params![seq, frame.session_id, frame.kind, frame.json]) {
            tracing::error!("an event was not stored: {e}");
        }
    }

    /// Frames with `seq > after` that `keep` wants, in `seq` order, at most `limit`.
    pub(crate) fn replay(
        &self,
        after: u64,
        limit: usize,
        keep: impl Fn(&Frame) -> bool,
    ) -> Vec<Arc<Frame>> {
        let mut out = Vec::new();
        let Ok(mut select) = self.conn.prepare_cached(
            "SELECT seq, session_id, kind, json FROM events WHERE seq > ?1 ORDER BY seq",
        ) else {
            return out;
        };
        let Ok(mut rows) = select.query(params![after.min(i64::MAX as u64) as i64]) else {
            return out;
        };
        while out.len() < limit {
            let Ok(Some(row)) = rows.next() else {
                break;
            };
            let frame = Frame {
                seq: row.get::<_, i64>(0).ok().map(|s| s as u64),
                session_id: row.get(1).unwrap_or_default(),
                kind: row.get(2).unwrap_or_default(),
                json: row.get(3).unwrap_or_default(),
            };
            if keep(&frame) {
                out.push(Arc::new(frame));
            }
        }
        out
    }
}

fn open_at(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    // A simulator's history is rebuilt by running it again: speed over durability.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != 0 && version != SCHEMA_VERSION {
        return Err(rusqlite::Error::InvalidQuery);
    }
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS events (
             seq INTEGER PRIMARY KEY,
             session_id TEXT NOT NULL,
             kind TEXT NOT NULL,
             json TEXT NOT NULL
         );",
    )?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u64, session: &str) -> Frame {
        Frame {
            seq: Some(seq),
            kind: "agent.message".into(),
            session_id: session.into(),
            json: format!("{{\"seq\":{seq}}}"),
        }
    }

    #[test]
    fn frames_come_back_after_the_cursor_in_order_filtered_and_capped() {
        let store = EventStore::open_fresh().unwrap();
        for seq in 1..=10 {
            store.append(&frame(seq, if seq % 2 == 0 { "a" } else { "b" }));
        }
        let seqs = |v: Vec<Arc<Frame>>| v.iter().map(|f| f.seq.unwrap()).collect::<Vec<_>>();
        assert_eq!(seqs(store.replay(6, usize::MAX, |_| true)), [7, 8, 9, 10]);
        assert_eq!(seqs(store.replay(0, 3, |f| f.session_id == "a")), [2, 4, 6]);
        assert_eq!(store.replay(3, 1, |_| true)[0].json, "{\"seq\":4}");
    }

    #[test]
    fn the_file_goes_with_the_store() {
        let store = EventStore::open_fresh().unwrap();
        let path = store._file.to_path_buf();
        assert!(path.exists());
        drop(store);
        assert!(!path.exists());
    }
}
