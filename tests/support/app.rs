//! This package's binary in a pseudo-terminal ([`gobare_test_support::pty`]) at the app
//! tests' size, and what the app's screen says where: its status bar, input box, fleet rows.

use gobare_sim::Simulator;
use gobare_test_support::pty::{ExitStatus, Launch, Pty, keys};
use gobare_tui::store::{SessionState, StateStore};
use std::time::{Duration, Instant};
use tempfile::TempDir;

use super::cli::BIN;

/// The terminal size every app test runs at unless it says otherwise.
pub(crate) const COLS: u16 = 140;
pub(crate) const ROWS: u16 = 44;

/// The binary with `args` and its home under `home`, without a server, in a
/// [`COLS`]×[`ROWS`] pty.
pub(crate) fn launch(args: &[&str], home: &TempDir) -> Launch {
    Launch::new(BIN, args, home.path()).size(COLS, ROWS)
}

/// [`launch`] talking to `sim`.
pub(crate) fn launch_on(sim: &Simulator, args: &[&str], home: &TempDir) -> Launch {
    launch(args, home).api(sim.url().as_str(), &sim.token())
}

/// The binary with `args`, talking to `sim`, in a [`COLS`]×[`ROWS`] pty.
pub(crate) fn spawn(args: &[&str], home: &TempDir, sim: &Simulator) -> Pty {
    launch_on(sim, args, home).spawn()
}

/// The binary with `args`, talking to `sim`, in a `cols`×`rows` pty.
pub(crate) fn spawn_sized(
    args: &[&str],
    home: &TempDir,
    sim: &Simulator,
    cols: u16,
    rows: u16,
) -> Pty {
    launch_on(sim, args, home).size(cols, rows).spawn()
}

/// `gobare-tui attach SESSION` against `sim`.
pub(crate) fn attach(session: &str, home: &TempDir, sim: &Simulator) -> Pty {
    spawn(&["attach", session], home, sim)
}

/// The fleet's list rows (below the header), without the frame.
pub(crate) fn fleet_list_rows(s: &vt100::Screen) -> Vec<String> {
    s.contents()
        .lines()
        .skip(2)
        .map(|l| {
            l.trim_start_matches('│')
                .trim_end()
                .trim_end_matches('│')
                .trim_end()
                .to_string()
        })
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// The status bar: the screen's last row.
pub(crate) fn status_line(s: &vt100::Screen) -> String {
    s.contents().lines().last().unwrap_or_default().to_string()
}

/// The bottom `rows` rows of the screen (the input box sits just above the status bar).
pub(crate) fn bottom(s: &vt100::Screen, rows: usize) -> String {
    let text = s.contents();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(rows)..].join("\n")
}

/// Quits as a person does: Ctrl+C, and `y` when the app asks first (a turn running, a
/// decision waiting, a draft). Returns the exit status.
pub(crate) fn quit(pty: &mut Pty, timeout: Duration) -> ExitStatus {
    pty.send_keys(keys::CTRL_C);
    if pty.wait_for_or_exit(
        "the quit question",
        |s| bottom(s, 10).contains("Quit?"),
        timeout,
    ) {
        pty.send_keys("y");
    }
    pty.wait_exit(timeout)
}

/// The input box of one line of text: the three rows just above the status bar.
pub(crate) fn input_box(s: &vt100::Screen) -> String {
    let text = s.contents();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(4)..lines.len().saturating_sub(1)].join("\n")
}

/// Muted text as the dark theme draws it in a 256-colour terminal (the tests' TERM): a
/// grey, where 16 colours have only the faint attribute.
const MUTED_256: vt100::Color = vt100::Color::Idx(247);

/// The cells of [`input_box`]'s rows that draw something, in reading order, each with
/// whether it is dim.
pub(crate) fn input_box_cells(s: &vt100::Screen) -> Vec<(String, bool)> {
    let (rows, cols) = s.size();
    let (rows, cols) = (rows.get(), cols.get());
    let mut cells = Vec::new();
    for row in rows.saturating_sub(4)..rows.saturating_sub(1) {
        for col in 0..cols {
            if let Some(cell) = s.cell(row, col)
                && !cell.contents().trim().is_empty()
            {
                let muted = cell.dim() || cell.fgcolor() == MUTED_256;
                cells.push((cell.contents().to_string(), muted));
            }
        }
    }
    cells
}

/// The session's state file, as the app wrote it (the default state until it exists).
pub(crate) fn on_disk(home: &TempDir, sim: &Simulator, session: &str) -> SessionState {
    StateStore::open(&home.path().join("state/gobare-tui"), &sim.url())
        .unwrap()
        .load_session(session)
}

/// Polls `check` until it holds, panicking with `what` (and `detail`) after `timeout`.
pub(crate) fn until<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
    detail: impl Fn() -> String,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}:\n{}",
            detail()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Tab to the waiting decision until `deciding` shows. A decision on screen for less than
/// the app's moment (250 ms) keeps the keys in the box and says so; the Tab is then pressed
/// again, as a person who read the notice would.
pub(crate) fn tab_to_decide(
    pty: &mut Pty,
    deciding: impl Fn(&vt100::Screen) -> bool,
    timeout: Duration,
) {
    let deadline = Instant::now() + timeout;
    loop {
        pty.send_keys(keys::TAB);
        if pty.holds_within(&deciding, Duration::from_millis(400)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "Tab never reached the decision:\n{}",
            pty.screen_text()
        );
    }
}
