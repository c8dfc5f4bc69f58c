//! The pty suites' common start: a simulator whose streams ping every second, a new session
//! in it, and the app attached to it from a fresh home, waited on until the status bar says
//! `● live`. The terminal and the isolated start are `gobare_test_support::pty`'s; what is
//! here is the app's own (its status bar, the tests' simulator).

use std::time::Duration;

use gobare_sim::{SimConfig, Simulator};
use tempfile::TempDir;

use super::app::{COLS, ROWS, spawn_sized, status_line};
use super::sim::Sim;
use gobare_test_support::pty::Pty;

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

/// A new session titled `title` in `sim`, and the app attached to it from a fresh home,
/// waited on until it is live: the session's id, the home (its directory goes when it is
/// dropped, so a test keeps it as long as the app runs) and the app in its pty.
pub(crate) fn attach_new(
    sim: &Simulator,
    title: &str,
    timeout: Duration,
) -> (String, TempDir, Pty) {
    attach_new_sized(sim, title, COLS, ROWS, timeout)
}

/// [`attach_new`] in a `cols`×`rows` pty.
pub(crate) fn attach_new_sized(
    sim: &Simulator,
    title: &str,
    cols: u16,
    rows: u16,
    timeout: Duration,
) -> (String, TempDir, Pty) {
    let session = sim.create_session(Some(title));
    let home = tempfile::tempdir().unwrap();
    let pty = spawn_sized(&["attach", &session], &home, sim, cols, rows);
    wait_live(&pty, timeout);
    (session, home, pty)
}
