//! The store's WAL checkpoints, copied on a thread and a connection of their own. The
//! writing connection still checkpoints when its WAL passes SQLite's bound (1,000 pages),
//! inside a commit under the database lock every request waits on; with this thread
//! having copied nearly everything already, that checkpoint has little left to copy. The
//! writer's own checkpoint stays: it runs while nothing else writes, so it is the one that
//! completes and lets the WAL start over (a checkpoint beside a busy writer never catches
//! the last frames, and the WAL would grow without bound).

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// How often the WAL is copied back into the database file.
const EVERY: Duration = Duration::from_millis(50);

/// The running checkpointer; dropping it stops the thread and waits for it.
pub(crate) struct Checkpointer {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Checkpoints the database at `path` every [`EVERY`] until dropped. `None` when it
    /// cannot open its connection: the writing connection then copies everything itself.
    pub(crate) fn start(path: &Path) -> Option<Checkpointer> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )
        .ok()?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("sim-checkpoint".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    // PASSIVE copies what it can without waiting for readers or the writer.
                    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::debug!("checkpoint: {e}");
                    }
                }
            })
            .ok()?;
        Some(Checkpointer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
