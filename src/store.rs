//! What gobare-tui remembers between runs, per API host, under the XDG state directory:
//! the last session opened and, per session, the stream cursor, the draft, the send history,
//! a send that was not confirmed yet, and the local event log of its persisted events
//! ([`event_log`]). Every write is atomic (temp file + rename), so a
//! crash leaves either the old or the new file, never half of one.

pub mod event_log;
pub mod event_log_writer;
mod file_names;
pub(crate) mod private_fs;
mod seen;
mod send_history;

pub use send_history::SendHistory;

use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most first messages remembered (the oldest remembered are forgotten first).
const FIRST_MESSAGES_LIMIT: usize = 5_000;
/// The largest session file read: the history's entries at the API's largest message
/// (1 MiB) with room for the draft. A larger one reads as no state.
const SESSION_FILE_MAX: u64 = 256 << 20;
/// The largest `first_messages.json` read: every remembered message at its longest.
const FIRST_MESSAGES_FILE_MAX: u64 = 16 << 20;
/// Largest workspace clocks file read back.
const CLOCKS_FILE_MAX: u64 = 4 << 20;
/// The largest `last_session` read: one session id.
const LAST_SESSION_FILE_MAX: u64 = 4 << 10;

/// The state kept for one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionState {
    /// The `seq` of the last persisted event applied; `None` when nothing was seen yet.
    pub cursor: Option<u64>,
    /// What was in the input box.
    pub draft: String,
    /// Texts sent, oldest first.
    pub history: SendHistory,
    /// A send that had not been confirmed when the app stopped: retried with the same key.
    pub pending_send: Option<PendingSend>,
    /// Workspace state last seen (e.g. `running`), to say how it changed while away.
    pub(crate) workspace_state: Option<String>,
    /// Unix ms of the last save.
    pub(crate) saved_at: i64,
    /// Approvals still waiting that were asked as sensitive: neither the items nor the
    /// session resource say so, and a restart must not make them one-key approvals.
    pub(crate) sensitive_calls: crate::session::sensitive::SensitiveCalls,
}

/// A send awaiting its answer, kept so it is neither lost nor sent twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingSend {
    /// `input.message`, `input.steer`, …
    pub(crate) kind: String,
    pub text: String,
    pub idempotency_key: String,
}

impl SessionState {
    pub(crate) fn push_history(&mut self, text: &str) {
        self.history.push(text);
    }
}

/// The state directory of one API host.
#[derive(Debug, Clone)]
pub struct StateStore {
    /// The state directory of every host.
    root: PathBuf,
    /// `hosts/<host>` below it.
    host: String,
    dir: PathBuf,
    /// Session writes tried, failed or not (shared by clones).
    save_attempts: Arc<AtomicU64>,
}

impl StateStore {
    /// `state_dir/<host>` where `<host>` names the API (e.g. `api.gobare.dev`,
    /// `127.0.0.1_4780`), created now.
    pub fn open(state_dir: &Path, api: &url::Url) -> io::Result<StateStore> {
        let store = StateStore::at(state_dir, api);
        store.private_dirs(&["sessions"])?;
        if let Err(e) = file_names::migrate(&store.dir) {
            tracing::warn!("cannot rename the state files to their hashed names: {e}");
        }
        Ok(store)
    }

    /// The same directory, created only when something is written: a directory that cannot
    /// be made yet (read-only, full, a file in the way) may be fixed while the app runs.
    pub fn at(state_dir: &Path, api: &url::Url) -> StateStore {
        let host = api.host_str().unwrap_or("local");
        let name = match api.port() {
            Some(p) => format!("{host}_{p}"),
            None => host.to_string(),
        };
        let host = safe_file_name(&name);
        StateStore {
            root: state_dir.to_path_buf(),
            dir: state_dir.join("hosts").join(&host),
            host,
            save_attempts: Arc::default(),
        }
    }

    /// Makes (or checks) the private directories from the state directory down to this
    /// host's, then `below` it.
    fn private_dirs(&self, below: &[&str]) -> io::Result<()> {
        let mut path = vec!["hosts", self.host.as_str()];
        path.extend_from_slice(below);
        private_fs::private_dirs(&self.root, &path)
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many session writes were tried through this store and its clones.
    #[cfg(test)]
    pub(crate) fn save_attempts(&self) -> u64 {
        self.save_attempts.load(Ordering::Relaxed)
    }

    fn session_path(&self, id: &str) -> PathBuf {
        self.dir
            .join("sessions")
            .join(format!("{}.json", file_names::session_stem(id)))
    }

    /// The saved state of a session, or the default when none (or unreadable).
    pub fn load_session(&self, id: &str) -> SessionState {
        private_fs::read_bounded(&self.session_path(id), SESSION_FILE_MAX)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub(crate) fn save_session(&self, id: &str, state: &SessionState) -> io::Result<()> {
        self.save_attempts.fetch_add(1, Ordering::Relaxed);
        let bytes = serde_json::to_vec_pretty(state).map_err(io::Error::other)?;
        self.private_dirs(&["sessions"])?;
        write_atomic(&self.session_path(id), &bytes)
    }

    /// Where the local event log of a session's persisted events lives (`events/` beside
    /// `sessions/`), the directory created.
    pub fn event_log_files(&self, id: &str) -> io::Result<event_log::EventLogFiles> {
        let dir = self.dir.join("events");
        self.private_dirs(&["events"])?;
        Ok(event_log::EventLogFiles::in_dir(
            &dir,
            &file_names::session_stem(id),
        ))
    }

    pub fn last_session(&self) -> Option<String> {
        let bytes =
            private_fs::read_bounded(&self.dir.join("last_session"), LAST_SESSION_FILE_MAX).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let id = text.trim();
        (!id.is_empty()).then(|| id.to_string())
    }

    pub fn set_last_session(&self, id: &str) -> io::Result<()> {
        self.private_dirs(&[])?;
        write_atomic(&self.dir.join("last_session"), id.as_bytes())
    }

    /// First messages of untitled sessions read before, by session id: a message once sent
    /// never changes, so lists need not ask again. Unreadable reads as empty.
    pub(crate) fn first_messages(&self) -> Vec<(String, String)> {
        private_fs::read_bounded(
            &self.dir.join("first_messages.json"),
            FIRST_MESSAGES_FILE_MAX,
        )
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
    }

    /// Remembers `found` after what is remembered already, oldest forgotten beyond
    /// [`FIRST_MESSAGES_LIMIT`].
    pub(crate) fn add_first_messages(&self, found: &[(String, String)]) -> io::Result<()> {
        if found.is_empty() {
            return Ok(());
        }
        let mut all = self.first_messages();
        all.retain(|(id, _)| !found.iter().any(|(new, _)| new == id));
        all.extend_from_slice(found);
        let excess = all.len().saturating_sub(FIRST_MESSAGES_LIMIT);
        all.drain(..excess);
        let bytes = serde_json::to_vec(&all).map_err(io::Error::other)?;
        self.private_dirs(&[])?;
        write_atomic(&self.dir.join("first_messages.json"), &bytes)
    }

    /// Workspace clocks the fleet knew (running time, running since, published), by
    /// session id: a deadline known before a restart is known after it. Unreadable reads
    /// as empty.
    pub(crate) fn workspace_clocks(&self) -> Vec<(String, i64, Option<i64>, bool)> {
        private_fs::read_bounded(&self.dir.join("workspace_clocks.json"), CLOCKS_FILE_MAX)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Keeps `clocks` in place of what was kept (at most [`FIRST_MESSAGES_LIMIT`]).
    pub(crate) fn save_workspace_clocks(
        &self,
        clocks: &[(String, i64, Option<i64>, bool)],
    ) -> io::Result<()> {
        let kept = &clocks[..clocks.len().min(FIRST_MESSAGES_LIMIT)];
        let bytes = serde_json::to_vec(kept).map_err(io::Error::other)?;
        self.private_dirs(&[])?;
        write_atomic(&self.dir.join("workspace_clocks.json"), &bytes)
    }

    /// Plain `gobare-tui` reopens nothing next time (the session is gone). Forgetting what
    /// was never remembered is not an error.
    pub(crate) fn forget_last_session(&self) -> io::Result<()> {
        match fs::remove_file(self.dir.join("last_session")) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Writes `bytes` to `path` so that readers see the old or the new content, never a mix.
/// The rename replaces whatever is at `path`, a planted link included, never its target.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Server-chosen ids are hostile: keep file names to a safe alphabet.
fn safe_file_name(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .take(128)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match cleaned.trim_start_matches('.') {
        "" => "_".to_string(),
        rest => rest.to_string(),
    }
}

#[cfg(test)]
mod tests {
    /// Files and links planted in the state directory.
    mod planted;
    use super::*;

    fn store() -> (tempfile::TempDir, StateStore) {
        let dir = tempfile::tempdir().unwrap();
        let url = url::Url::parse("http://127.0.0.1:4780").unwrap();
        let store = StateStore::open(dir.path(), &url).unwrap();
        (dir, store)
    }

    #[test]
    fn session_state_round_trips_and_defaults_when_missing() {
        let (_d, store) = store();
        assert_eq!(store.load_session("s1"), SessionState::default());
        let mut st = SessionState {
            cursor: Some(0),
            draft: "half a thought".into(),
            ..Default::default()
        };
        st.pending_send = Some(PendingSend {
            kind: "input.message".into(),
            text: "hi".into(),
            idempotency_key: "k1".into(),
        });
        store.save_session("s1", &st).unwrap();
        assert_eq!(store.load_session("s1"), st);
        // Cursor 0 stays 0, distinct from None.
        assert_eq!(store.load_session("s1").cursor, Some(0));
    }

    #[test]
    fn last_session_is_remembered_per_host() {
        let (dir, store) = store();
        assert_eq!(store.last_session(), None);
        store.set_last_session("abc").unwrap();
        assert_eq!(store.last_session().as_deref(), Some("abc"));
        let other = StateStore::open(
            dir.path(),
            &url::Url::parse("https://api.gobare.dev").unwrap(),
        )
        .unwrap();
        assert_eq!(other.last_session(), None);
    }

    #[test]
    fn a_forgotten_last_session_is_gone_and_forgetting_twice_is_fine() {
        let (_dir, store) = store();
        store.set_last_session("s1").unwrap();
        store.forget_last_session().unwrap();
        assert_eq!(store.last_session(), None);
        store.forget_last_session().unwrap();
    }

    #[test]
    fn first_messages_are_remembered_updated_and_bounded() {
        let (_dir, store) = store();
        assert!(store.first_messages().is_empty());
        let pair = |i: usize| (format!("s{i}"), format!("message {i}"));
        store.add_first_messages(&[pair(1), pair(2)]).unwrap();
        store
            .add_first_messages(&[("s1".into(), "again".into())])
            .unwrap();
        assert_eq!(
            store.first_messages(),
            [pair(2), ("s1".to_string(), "again".to_string())]
        );
        let many: Vec<_> = (0..FIRST_MESSAGES_LIMIT + 10).map(pair).collect();
        store.add_first_messages(&many).unwrap();
        let kept = store.first_messages();
        assert_eq!(kept.len(), FIRST_MESSAGES_LIMIT);
        assert_eq!(kept[0], pair(10), "the oldest are forgotten");
    }

    #[test]
    fn hostile_ids_stay_inside_the_state_directory() {
        let (_d, store) = store();
        for id in ["../../etc/passwd", "/abs", "..", "a\u{0}b", ""] {
            let p = store.session_path(id);
            assert!(
                p.starts_with(store.dir().join("sessions")),
                "{id:?} -> {p:?}"
            );
            assert_eq!(p.parent().unwrap(), store.dir().join("sessions"));
        }
    }

    #[test]
    fn corrupt_file_reads_as_default() {
        let (_d, store) = store();
        fs::write(store.session_path("s"), b"{not json").unwrap();
        assert_eq!(store.load_session("s"), SessionState::default());
    }
}
