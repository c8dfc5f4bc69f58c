//! A state directory the app cannot write (here a file where it should be): the app says so
//! once, keeps the draft in memory without spinning on the disk, and writes it once the
//! disk takes it again. The CPU it uses meanwhile is printed (a figure, not asserted).

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::app::{bottom, launch_on, quit, spawn_sized, status_line};
use crate::support::live::{pinging, wait_live};
use crate::support::process;
use gobare_sim::SimConfig;

const TIMEOUT: Duration = Duration::from_secs(30);
/// Wide enough for the notice with its temp-dir path on the status bar.
const COLS: u16 = 200;
const ROWS: u16 = 40;
const DRAFT: &str = "half a thought the disk refused";

fn logs(state: &Path) -> String {
    std::fs::read_dir(state.join("logs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

#[test]
fn a_file_where_the_hosts_dir_goes_is_said_once_keeps_the_draft_and_is_written_when_removed() {
    // The logs directory can be made (and is checked); every host's state cannot.
    refusing_disk("state/gobare-tui/hosts", true);
}

#[test]
fn xdg_state_home_naming_a_file_is_said_keeps_the_draft_and_is_written_when_removed() {
    // No logs either: the app runs without them.
    refusing_disk("state", false);
}

/// `blocker` (under the test's home) is a file where a directory of the state should be.
fn refusing_disk(blocker: &str, logs_kept: bool) {
    let sim = pinging(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("refusing disk"));
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join("state/gobare-tui");
    let blocker = home.path().join(blocker);
    std::fs::create_dir_all(blocker.parent().unwrap()).unwrap();
    std::fs::write(&blocker, "a file where the directory goes").unwrap();

    let mut pty = spawn_sized(&["attach", &session], &home, &sim.sim, COLS, ROWS);
    wait_live(&pty, TIMEOUT);
    pty.send_keys(DRAFT);
    pty.wait_for(
        "the notice that the state cannot be saved",
        |s| {
            let status = status_line(s);
            status.contains("cannot save state to") && status.contains("kept in memory")
        },
        TIMEOUT,
    );
    assert!(
        pty.with_screen(status_line)
            .contains(&*blocker.to_string_lossy()),
        "the notice names the directory: {}",
        pty.with_screen(status_line)
    );

    // Idle with a dirty state and a refusing disk: the figure the old retry loop blew.
    let pid = pty.pid();
    let before = process::stat(pid);
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(3));
    let after = process::stat(pid);
    let wall = started.elapsed();
    let cpu = after.cpu.saturating_sub(before.cpu);
    println!(
        "perf: idle 3 s with an unwritable state dir ({}), CPU = {:.2} % of one core ({} ms in {:.1} s; load {})",
        blocker.strip_prefix(home.path()).unwrap().display(),
        cpu.as_secs_f64() / wall.as_secs_f64() * 100.0,
        cpu.as_millis(),
        wall.as_secs_f64(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    assert!(!after.exited(), "the app is alive");
    assert!(
        pty.with_screen(|s| bottom(s, 4)).contains(DRAFT),
        "the draft is still in the box:\n{}",
        pty.screen_text()
    );
    if logs_kept {
        let failures = logs(&state)
            .matches("cannot save the session state")
            .count();
        assert_eq!(failures, 1, "one log line per episode:\n{}", logs(&state));
    }

    // The disk takes it again: the draft reaches the state file, without a keystroke.
    std::fs::remove_file(&blocker).unwrap();
    // `at`, not `open`: the app must make the directories itself.
    let store = gobare_tui::store::StateStore::at(&state, &sim.sim.url());
    let deadline = Instant::now() + TIMEOUT;
    while store.load_session(&session).draft != DRAFT {
        assert!(
            Instant::now() < deadline,
            "the draft never reached the disk"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    pty.wait_for(
        "the notice that it is saved again",
        |s| status_line(s).contains("saved again"),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// The disk still refuses at quit: once the screen has closed, stderr says the draft was
/// not saved and names the file it went to instead (in the temporary directory).
#[test]
fn a_draft_the_disk_refuses_at_quit_is_said_on_stderr_with_the_file_it_went_to() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("refusing disk at quit"));
    let home = tempfile::tempdir().unwrap();
    let blocker = home.path().join("state/gobare-tui/hosts");
    std::fs::create_dir_all(blocker.parent().unwrap()).unwrap();
    std::fs::write(&blocker, "a file where the directory goes").unwrap();
    let tmp = home.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();

    let mut pty = launch_on(&sim.sim, &["attach", &session], &home)
        .env("TMPDIR", &tmp)
        .size(COLS, ROWS)
        .spawn();
    wait_live(&pty, TIMEOUT);
    pty.send_keys(DRAFT);
    pty.wait_for(
        "the draft in the box",
        |s| bottom(s, 4).contains(DRAFT),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());

    let kept: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(kept.len(), 1, "one file for what was typed: {kept:?}");
    let text = std::fs::read_to_string(&kept[0]).unwrap();
    assert!(text.contains(DRAFT), "{text}");
    let screen = pty.screen_text();
    assert!(
        screen.contains("could not save what was typed")
            && screen.contains(&*kept[0].to_string_lossy()),
        "said after the screen closed, with the file:\n{screen}"
    );
}
