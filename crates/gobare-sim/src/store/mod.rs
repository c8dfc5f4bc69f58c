//! The simulator's SQLite file (rusqlite's bundled library: kept, crash-safe through its
//! transactions, queried by key): either this run's own temporary file under the user's
//! cache directory, removed when the simulator goes, or `sim.sqlite` in a data directory
//! (`--data DIR`), kept, and reopened by the next simulator there.
//!
//! The layout carries a version; a file of the previous layout is migrated in place, and one
//! of another version (or not a store at all) is set aside under a new name, said on
//! stderr, and a fresh store takes its place: it is never read as this layout.
//!
//! Beside the file: `events` (the event log), `saved` (sessions, turns, artifacts and
//! items), `restore` (what a restart does with them), `retention` (pruning past the
//! bound) and `data_dir` (a private data directory).

pub(crate) mod data_dir;
pub(crate) mod events;
pub(crate) mod restore;
pub(crate) mod retention;
pub(crate) mod saved;

use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

/// The layout of the file (`PRAGMA user_version`). Layout 2 lacked the `resolved` table
/// (sessions carried those actions in their rows), layout 3 the `seq` of items, turns and
/// artifacts that retention prunes them by: both are migrated, not set aside.
pub(crate) const SCHEMA_VERSION: i64 = 4;
const MIGRATED_VERSIONS: [i64; 2] = [2, 3];

/// The store's file name in a data directory.
pub(crate) const FILE_NAME: &str = "sim.sqlite";

pub(crate) struct Store {
    pub(crate) conn: Connection,
    /// Removes a temporary file when the store goes.
    _temp: Option<tempfile::TempPath>,
    /// Held for the store's life: one simulator per data directory.
    _lock: Option<File>,
    /// Whether this file is kept past the run (a data directory's).
    pub(crate) kept: bool,
}

/// Where temporary stores live: `$XDG_CACHE_HOME/gobare-tui/sim` (not `/tmp`, which is
/// memory on many systems), else the system's temporary directory.
fn temp_dir() -> PathBuf {
    directories::BaseDirs::new()
        .map(|d| d.cache_dir().join("gobare-tui").join("sim"))
        .unwrap_or_else(std::env::temp_dir)
}

impl Store {
    /// A fresh temporary store.
    pub(crate) fn open_temp() -> std::io::Result<Store> {
        let dir = temp_dir();
        std::fs::create_dir_all(&dir)?;
        let file = tempfile::Builder::new()
            .prefix("events-")
            .suffix(".sqlite")
            .tempfile_in(&dir)?
            .into_temp_path();
        let conn = open_at(&file).map_err(std::io::Error::other)?;
        Ok(Store {
            conn,
            _temp: Some(file),
            _lock: None,
            kept: false,
        })
    }

    /// A store in memory that nothing reads: what a stopped simulator writes to, so its
    /// late tasks never touch the file the next simulator has opened.
    pub(crate) fn detached() -> Store {
        let conn = Connection::open_in_memory().expect("SQLite opens in memory");
        create_tables(&conn).expect("the tables are created in memory");
        Store {
            conn,
            _temp: None,
            _lock: None,
            kept: false,
        }
    }

    /// The kept store in `dir` (created if missing; emptied first when `fresh`). Fails with
    /// `WouldBlock` when another simulator holds the directory, `PermissionDenied` when the
    /// directory is not safe to keep it in ([`data_dir::prepare`]).
    pub(crate) fn open_dir(dir: &Path, fresh: bool) -> std::io::Result<Store> {
        data_dir::prepare(dir)?;
        let lock = data_dir::open_private(&dir.join("lock"))?;
        lock_or_refuse(&lock, dir)?;
        let path = dir.join(FILE_NAME);
        if fresh {
            for suffix in ["", "-wal", "-shm"] {
                match std::fs::remove_file(dir.join(format!("{FILE_NAME}{suffix}"))) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
        if let Some(found) = foreign_version(&path) {
            let aside = set_aside(&path, &found)?;
            eprintln!(
                "gobare-sim: {} is a store of {found}, not version {SCHEMA_VERSION}: moved to {} \
                 and starting a fresh one",
                path.display(),
                aside.display()
            );
        }
        // Made 0600 before SQLite opens it: its journal files take the file's mode.
        data_dir::open_private(&path)?;
        let conn = open_at(&path).map_err(std::io::Error::other)?;
        Ok(Store {
            conn,
            _temp: None,
            _lock: Some(lock),
            kept: true,
        })
    }
}

/// What an existing file at `path` is, when it is not this layout (or empty).
fn foreign_version(path: &Path) -> Option<String> {
    if !path.exists() {
        return None;
    }
    let version = Connection::open(path).and_then(|c| {
        // Reading the version reads the header: a file that is not SQLite fails here.
        c.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
    });
    match version {
        Ok(v)
            if v == SCHEMA_VERSION
                || MIGRATED_VERSIONS.contains(&v)
                || v == 0 && is_empty(path) =>
        {
            None
        }
        Ok(v) => Some(format!("version {v}")),
        Err(_) => Some("an unreadable kind".into()),
    }
}

fn is_empty(path: &Path) -> bool {
    Connection::open(path)
        .and_then(|c| {
            c.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })
        })
        .is_ok_and(|n| n == 0)
}

/// Renames the file (and its journal files) to a free `…-set-aside-N` name.
fn set_aside(path: &Path, found: &str) -> std::io::Result<PathBuf> {
    let tag = found.replace(' ', "-");
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(FILE_NAME);
    let aside = (1..)
        .map(|n| path.with_file_name(format!("{name}.{tag}.set-aside-{n}")))
        .find(|p| !p.exists())
        .expect("some name is free");
    std::fs::rename(path, &aside)?;
    for journal in ["-wal", "-shm"] {
        let from = path.with_file_name(format!("{name}{journal}"));
        if from.exists() {
            let to = aside.with_file_name(format!(
                "{}{journal}",
                aside.file_name().and_then(|n| n.to_str()).unwrap_or(name)
            ));
            std::fs::rename(from, to)?;
        }
    }
    Ok(aside)
}

fn open_at(path: &Path) -> rusqlite::Result<Connection> {
    let conn =
        Connection::open_with_flags(path, OpenFlags::default() | OpenFlags::SQLITE_OPEN_NOFOLLOW)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // WAL commits survive a killed process without a sync; syncing (even only at
    // checkpoints) stalls every emit behind the disk: a simulator gives up power-loss
    // safety instead.
    conn.pragma_update(None, "synchronous", "OFF")?;
    create_tables(&conn)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(conn)
}

fn create_tables(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE IF NOT EXISTS events (
             seq INTEGER PRIMARY KEY,
             session_id TEXT NOT NULL,
             kind TEXT NOT NULL,
             json TEXT NOT NULL
         );
         CREATE INDEX IF NOT EXISTS events_by_session ON events (session_id, seq);
         CREATE TABLE IF NOT EXISTS sessions (
             id TEXT PRIMARY KEY,
             ord INTEGER NOT NULL,
             json TEXT NOT NULL
         );
         CREATE TABLE IF NOT EXISTS turns (
             id TEXT PRIMARY KEY,
             session_id TEXT NOT NULL,
             ord INTEGER NOT NULL,
             json TEXT NOT NULL,
             seq INTEGER
         );
         CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session_id, ord);
         CREATE TABLE IF NOT EXISTS artifacts (
             id TEXT PRIMARY KEY,
             session_id TEXT NOT NULL,
             ord INTEGER NOT NULL,
             json TEXT NOT NULL,
             body BLOB,
             seq INTEGER NOT NULL DEFAULT 0
         );
         CREATE INDEX IF NOT EXISTS artifacts_by_session ON artifacts (session_id, ord);
         CREATE TABLE IF NOT EXISTS items (
             n INTEGER PRIMARY KEY,
             session_id TEXT NOT NULL,
             json TEXT NOT NULL,
             seq INTEGER NOT NULL DEFAULT 0
         );
         CREATE INDEX IF NOT EXISTS items_by_session ON items (session_id, n);
         CREATE TABLE IF NOT EXISTS resolved (
             session_id TEXT NOT NULL,
             call_id TEXT NOT NULL,
             answered INTEGER NOT NULL,
             PRIMARY KEY (session_id, call_id)
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS meta (
             key TEXT PRIMARY KEY,
             json TEXT NOT NULL
         );
         COMMIT;",
    )?;
    add_retention_columns(conn)
}

/// The `seq` columns layout 3 lacked: the last event of the history a row belongs to
/// (retention drops the row with that event). Rows of an older store get 0 (the oldest
/// history); a turn still in memory has none (it is never pruned).
fn add_retention_columns(conn: &Connection) -> rusqlite::Result<()> {
    for (table, column) in [
        ("items", "seq INTEGER NOT NULL DEFAULT 0"),
        ("turns", "seq INTEGER"),
        ("artifacts", "seq INTEGER NOT NULL DEFAULT 0"),
    ] {
        let has_seq = conn
            .prepare(&format!(
                "SELECT 1 FROM pragma_table_info('{table}') WHERE name = 'seq'"
            ))?
            .exists([])?;
        if !has_seq {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column}"))?;
        }
    }
    // Turns are rewritten while in memory (out of `seq` order): pruned through an index.
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS turns_by_seq ON turns (seq) WHERE seq IS NOT NULL",
    )
}

/// How long a held directory is asked again before it is refused. A process being started
/// holds a copy of every descriptor from its fork until its exec closes them, the lock's
/// too: a simulator stopped a moment ago can look held for that long.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// Takes `dir`'s lock, or says that another simulator uses it.
fn lock_or_refuse(lock: &File, dir: &Path) -> std::io::Result<()> {
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    format!("another simulator uses {}", dir.display()),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_file_goes_with_the_store() {
        let store = Store::open_temp().unwrap();
        let path = store._temp.as_ref().unwrap().to_path_buf();
        assert!(path.exists());
        drop(store);
        assert!(!path.exists());
    }

    #[test]
    fn the_previous_layout_is_migrated_in_place_not_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_dir(dir.path(), false).unwrap();
        store
            .conn
            .execute_batch("DROP TABLE resolved; PRAGMA user_version = 2;")
            .unwrap();
        drop(store);
        let store = Store::open_dir(dir.path(), false).unwrap();
        let version: i64 = store
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        store
            .conn
            .execute("INSERT INTO resolved VALUES ('s', 'c', 1)", [])
            .unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(!names.iter().any(|n| n.contains("set-aside")), "{names:?}");
    }

    #[test]
    fn a_second_opener_of_a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let first = Store::open_dir(dir.path(), false).unwrap();
        let second = Store::open_dir(dir.path(), false).err().unwrap();
        assert_eq!(second.kind(), std::io::ErrorKind::WouldBlock);
        drop(first);
        Store::open_dir(dir.path(), false).unwrap();
    }
}
