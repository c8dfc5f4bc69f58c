//! The pty suites' common start: a simulator whose streams ping every second, a new session
//! in it, and the app attached to it from a fresh home, waited on until the status bar says
//! `● live`. It lives here rather than in `gobare-test-support` because it runs this
//! package's binary, whose path (`CARGO_BIN_EXE_gobare-tui`) cargo gives only to this
//! package's own integration tests.

use std::time::Duration;

use gobare_sim::{SimConfig, Simulator};
use tempfile::TempDir;

use super::app::{attach, status_line};
use super::pty::Pty;
use super::sim::Sim;

/// The tests' simulator at `speed`, its streams pinging every second (see [`pinging`]).
pub(crate) fn pinging_sim(speed: f64) -> Sim {
    pinging(SimConfig {
        speed,
        ..SimConfig::for_tests()
    })
}

/// `config` started with a ping every second: the status bar says `● live` once the server
/// has spoken on the stream, so a quiet session is live within a second.
pub(crate) fn pinging(config: SimConfig) -> Sim {
    super::sim::start(SimConfig {
        ping_interval: Duration::from_secs(1),
        ..config
    })
}

/// Waits until the status bar says `● live`.
pub(crate) fn wait_live(pty: &Pty, timeout: Duration) {
    pty.wait_for("live", |s| status_line(s).contains("● live"), timeout);
}

/// The app attached to a session of its own, live.
pub(crate) struct Attached {
    pub(crate) session: String,
    /// The app's state and config; the directory goes when this is dropped.
    pub(crate) home: TempDir,
    pub(crate) pty: Pty,
}

/// A new session titled `title` in `sim`, and the app attached to it from a fresh home,
/// waited on until it is live.
pub(crate) fn attach_new(sim: &Simulator, title: &str, timeout: Duration) -> Attached {
    let session = sim.create_session(Some(title));
    let home = tempfile::tempdir().unwrap();
    let pty = attach(&session, &home, sim);
    wait_live(&pty, timeout);
    Attached { session, home, pty }
}
