//! "Coming back": the per-session state kept on disk (cursor, draft, history, pending send,
//! last workspace state) and the notice shown when the user returns to a session.
//!
//! Writes are atomic ([`StateStore`]) and rate-limited: the cursor and draft change on every
//! event and keystroke, so each change only bumps a generation (a keystroke only marks the
//! draft edited: the box's text is read when a write starts), and `app::saving` writes a
//! `SaveJob` — a snapshot — on a blocking thread at most once per `SAVE_INTERVAL`, and
//! on exit ([`SavedSession::flush`]). A pending send is written at once: it must be on disk
//! before the request leaves. Writes pass one gate in generation order, so an older snapshot
//! never overwrites a newer one.

use crate::store::{PendingSend, SessionState, StateStore};
use crate::ui::composer::History;
use gobare_api::model::WorkspaceState;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The fastest the cursor and draft are rewritten.
pub(crate) const SAVE_INTERVAL: Duration = Duration::from_secs(1);

/// One session's remembered state, shared by the loop and the send executor.
pub type SharedSavedSession = Arc<Mutex<SavedSession>>;

/// Locking that survives a panic elsewhere: the state is plain data, still usable.
pub trait LockOrRecover {
    fn lock_or_recover(&self) -> MutexGuard<'_, SavedSession>;
}

impl LockOrRecover for SharedSavedSession {
    fn lock_or_recover(&self) -> MutexGuard<'_, SavedSession> {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A session's state as loaded at attach time, plus what changed since.
#[derive(Debug)]
pub struct SavedSession {
    store: StateStore,
    session_id: String,
    state: SessionState,
    /// Bumped by every change of `state`.
    generation: u64,
    /// The generation known to be on disk.
    saved: u64,
    /// The box was edited since its text was last copied into `state`.
    draft_edited: bool,
    /// The generation last written, held while writing.
    gate: Arc<Mutex<u64>>,
}

impl SavedSession {
    /// Loads the session's state (the default when none).
    pub fn open(store: StateStore, session_id: &str) -> SavedSession {
        let state = store.load_session(session_id);
        SavedSession {
            store,
            session_id: session_id.to_string(),
            state,
            generation: 0,
            saved: 0,
            draft_edited: false,
            gate: Arc::default(),
        }
    }

    fn changed(&mut self) {
        self.generation += 1;
    }

    /// Where the state is written.
    pub(crate) fn dir(&self) -> &Path {
        self.store.dir()
    }

    pub fn shared(self) -> SharedSavedSession {
        Arc::new(Mutex::new(self))
    }

    /// Everything as last saved or changed.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// The cursor to resume the stream from (`None`: nothing seen yet, replay from 0).
    pub fn cursor(&self) -> Option<u64> {
        self.state.cursor
    }

    /// Where the stream resumes (§11.2, exact): after the stored cursor, or from 0 (the
    /// whole persisted history) on a first visit. Never live-only: that would leave a gap.
    pub fn stream_from(&self) -> Option<u64> {
        Some(self.state.cursor.unwrap_or(0))
    }

    /// The send history, ready for the composer.
    pub fn history(&self) -> History {
        History::new(self.state.history.clone())
    }

    pub fn pending_send(&self) -> Option<&PendingSend> {
        self.state.pending_send.as_ref()
    }

    /// Records the last persisted `seq` applied. Never moves backwards.
    pub fn set_cursor(&mut self, seq: u64) {
        if self.state.cursor.is_none_or(|c| seq > c) {
            self.state.cursor = Some(seq);
            self.changed();
        }
    }

    /// Marks (or, once resolved, forgets) a sensitive approval that waits.
    pub(crate) fn set_sensitive(&mut self, call_id: &str, sensitive: bool) {
        let calls = &mut self.state.sensitive_calls;
        let changed = if sensitive {
            !calls.contains(call_id) && calls.note(call_id, true)
        } else {
            calls.forget(call_id)
        };
        if changed {
            self.changed();
        }
    }

    /// The sensitive approvals remembered from the last run.
    pub(crate) fn sensitive_calls(&self) -> &crate::session::sensitive::SensitiveCalls {
        &self.state.sensitive_calls
    }

    pub fn set_draft(&mut self, draft: &str) {
        if self.state.draft != draft {
            self.state.draft = draft.to_string();
            self.changed();
        }
    }

    /// The box was edited: its text is copied in (`Self::sync_draft`) when a write
    /// starts, not on every keystroke.
    pub fn note_draft_edited(&mut self) {
        self.draft_edited = true;
    }

    /// Copies the box's text in if it was edited since the last copy.
    pub(crate) fn sync_draft(&mut self, text: impl FnOnce() -> String) {
        if std::mem::take(&mut self.draft_edited) {
            self.set_draft(&text());
        }
    }

    pub fn push_history(&mut self, text: &str) {
        self.state.push_history(text);
        self.changed();
    }

    pub(crate) fn set_workspace_state(&mut self, state: Option<&WorkspaceState>) {
        let state = state.map(|s| s.as_str().to_string());
        if self.state.workspace_state != state {
            self.state.workspace_state = state;
            self.changed();
        }
    }

    /// Records (or clears) the send in flight and writes everything now.
    pub(crate) fn set_pending(&mut self, pending: Option<PendingSend>) -> io::Result<()> {
        self.state.pending_send = pending;
        self.changed();
        self.flush()
    }

    /// Something is not on disk yet (or the box's text may not be).
    pub fn is_dirty(&self) -> bool {
        self.draft_edited || self.generation != self.saved
    }

    /// A snapshot to write, or `None` when the disk has everything.
    pub(crate) fn save_job(&self) -> Option<SaveJob> {
        (self.generation != self.saved).then(|| SaveJob {
            store: self.store.clone(),
            session_id: self.session_id.clone(),
            generation: self.generation,
            state: self.state.clone(),
            gate: Arc::clone(&self.gate),
        })
    }

    /// `generation` is on disk.
    pub(crate) fn note_saved(&mut self, generation: u64) {
        self.saved = self.saved.max(generation);
    }

    /// The typed text a failed write (`why`) leaves only in memory.
    pub(crate) fn unsaved(&self, why: &io::Error) -> super::unsaved::Unsaved {
        super::unsaved::Unsaved {
            session_id: self.session_id.clone(),
            why: why.to_string(),
            draft: self.state.draft.clone(),
            unconfirmed: self.state.pending_send.as_ref().map(|p| p.text.clone()),
        }
    }

    /// Writes now, on this thread, if anything changed (on exit, and for the pending send).
    pub fn flush(&mut self) -> io::Result<()> {
        let Some(job) = self.save_job() else {
            return Ok(());
        };
        let done = job.write();
        done.result?;
        self.note_saved(done.generation);
        Ok(())
    }
}

/// One write of a session's state: a snapshot, written wherever it runs.
#[derive(Debug)]
pub(crate) struct SaveJob {
    store: StateStore,
    session_id: String,
    generation: u64,
    state: SessionState,
    gate: Arc<Mutex<u64>>,
}

/// How a [`SaveJob`] went.
#[derive(Debug)]
pub(crate) struct SaveDone {
    pub(crate) generation: u64,
    pub(crate) result: io::Result<()>,
}

impl SaveJob {
    /// Serializes and writes the snapshot, unless a newer one is already on disk.
    pub(crate) fn write(mut self) -> SaveDone {
        let mut written = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        let result = if *written >= self.generation {
            Ok(())
        } else {
            self.state.saved_at = gobare_api::clock::unix_ms();
            let result = self.store.save_session(&self.session_id, &self.state);
            if result.is_ok() {
                *written = self.generation;
            }
            result
        };
        SaveDone {
            generation: self.generation,
            result,
        }
    }
}

/// One line about how the workspace changed while the user was away, comparing the state
/// stored at the last visit with the session's current one. `None` when nothing worth
/// saying changed (or nothing was stored: a first visit).
pub(crate) fn away_notice(
    stored: Option<&str>,
    current: Option<&WorkspaceState>,
) -> Option<String> {
    let stored = WorkspaceState::from(stored?);
    let current = current?;
    if &stored == current {
        return None;
    }
    let line = match current {
        WorkspaceState::Paused => {
            "workspace was paused while you were away; it wakes on your next message"
        }
        WorkspaceState::Destroyed => {
            "workspace was destroyed while you were away and will be rebuilt on send \
             (files outside /workspace/outputs are gone)"
        }
        WorkspaceState::Recovering => "workspace is recovering after a failure while you were away",
        WorkspaceState::RecoveryFailed => {
            "workspace failed to recover while you were away; the next message rebuilds it"
        }
        WorkspaceState::Running => "workspace is running again",
        WorkspaceState::Unknown | WorkspaceState::Other(_) => return None,
    };
    Some(line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved_session() -> (tempfile::TempDir, StateStore, SavedSession) {
        let dir = tempfile::tempdir().unwrap();
        let url = url::Url::parse("http://127.0.0.1:4780").unwrap();
        let store = StateStore::open(dir.path(), &url).unwrap();
        let saved_session = SavedSession::open(store.clone(), "s1");
        (dir, store, saved_session)
    }

    #[test]
    fn changes_are_snapshots_written_in_order_and_reloaded() {
        let (_d, store, mut m) = saved_session();
        assert!(!m.is_dirty(), "nothing changed yet");
        assert!(m.save_job().is_none());
        m.set_cursor(7);
        m.set_draft("half");
        m.push_history("sent one");
        let older = m.save_job().unwrap();
        m.set_cursor(9);
        m.note_draft_edited();
        assert!(m.is_dirty());
        m.sync_draft(|| "half a thought".into());
        let newer = m.save_job().unwrap();
        let done = newer.write();
        done.result.unwrap();
        m.note_saved(done.generation);
        assert!(!m.is_dirty());
        // The older snapshot finishing last must not overwrite the newer one.
        let late = older.write();
        late.result.unwrap();
        m.note_saved(late.generation);
        assert!(!m.is_dirty());
        let back = SavedSession::open(store, "s1");
        assert_eq!(back.cursor(), Some(9));
        assert_eq!(back.state().draft, "half a thought");
        assert_eq!(back.state().history.entries(), ["sent one"]);
    }

    #[test]
    fn a_keystroke_copies_nothing_until_a_write_starts() {
        let (_d, _s, mut m) = saved_session();
        m.note_draft_edited();
        assert!(m.is_dirty());
        assert_eq!(m.state().draft, "");
        m.sync_draft(|| "typed".into());
        assert_eq!(m.state().draft, "typed");
        m.sync_draft(|| unreachable!("not edited since"));
    }

    #[test]
    fn the_cursor_never_moves_backwards_and_zero_is_kept() {
        let (_d, _s, mut m) = saved_session();
        m.set_cursor(0);
        assert_eq!(m.cursor(), Some(0));
        m.set_cursor(5);
        m.set_cursor(3);
        assert_eq!(m.cursor(), Some(5));
    }

    #[test]
    fn a_pending_send_is_written_at_once() {
        let (_d, store, mut m) = saved_session();
        m.set_pending(Some(PendingSend {
            kind: "input.message".into(),
            text: "hi".into(),
            idempotency_key: "k1".into(),
        }))
        .unwrap();
        assert_eq!(
            store
                .load_session("s1")
                .pending_send
                .unwrap()
                .idempotency_key,
            "k1"
        );
        m.set_pending(None).unwrap();
        assert_eq!(store.load_session("s1").pending_send, None);
    }

    #[test]
    fn away_notice_says_how_the_workspace_changed() {
        let paused = away_notice(Some("running"), Some(&WorkspaceState::Paused)).unwrap();
        assert!(paused.contains("paused") && paused.contains("next message"));
        let destroyed = away_notice(Some("paused"), Some(&WorkspaceState::Destroyed)).unwrap();
        assert!(destroyed.contains("rebuilt on send"));
        assert_eq!(
            away_notice(Some("paused"), Some(&WorkspaceState::Paused)),
            None
        );
        assert_eq!(away_notice(None, Some(&WorkspaceState::Paused)), None);
    }
}
