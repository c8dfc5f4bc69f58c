//! Every way out of the full-screen terminal gives it back: normal quit, error return, panic,
//! SIGTERM, SIGHUP, and Ctrl+Z suspend/resume; and a terminal that is gone is left cleanly. Drives `examples/terminal_restore.rs` in a
//! pseudo-terminal.
//!
//! The example is located next to this test binary (`target/debug/examples/`). `cargo test`
//! builds examples by default; when running only this file, build it first:
//! `cargo build --example terminal_restore && cargo test --test pty_terminal`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::restore::{assert_restored, last};
use gobare_test_support::pty::CommandBuilder;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(20);

fn example_path() -> PathBuf {
    // target/debug/deps/pty_terminal-<hash> → target/debug/examples/terminal_restore
    let exe = std::env::current_exe().expect("current exe");
    let debug_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir");
    let path = debug_dir.join("examples").join("terminal_restore");
    assert_fresh(&path);
    path
}

/// `cargo test` builds examples before running tests; a lone `cargo test --test pty_terminal`
/// may not, so say how to get the binary rather than fail obscurely. (Comparing mtimes with
/// the sources is not reliable: cargo does not relink an example for unrelated edits.)
fn assert_fresh(path: &Path) {
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --example terminal_restore` (plain `cargo test` builds it)",
        path.display()
    );
}

fn start(mode: &str) -> Pty {
    let mut cmd = CommandBuilder::new(example_path());
    cmd.arg(mode);
    cmd.env("RUST_BACKTRACE", "0");
    let pty = Pty::spawn(cmd, 80, 24);
    pty.wait_for(
        "alternate screen with READY",
        |s| s.alternate_screen() && s.contents().contains("READY"),
        TIMEOUT,
    );
    pty
}

#[test]
fn normal_quit_restores() {
    let mut pty = start("keys");
    assert!(!pty.is_cooked(), "raw mode should be on while running");
    pty.send_keys("q");
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}");
    assert_restored(&pty, false);
    assert!(pty.screen_text().contains("RESTORED"));
}

#[test]
fn error_return_restores() {
    let mut pty = start("keys");
    pty.send_keys("e");
    let status = pty.wait_exit(TIMEOUT);
    assert!(!status.success());
    assert_restored(&pty, false);
    assert!(pty.screen_text().contains("requested error"));
}

#[test]
fn panic_restores_before_the_message() {
    let mut pty = start("mouse");
    pty.send_keys("p");
    let status = pty.wait_exit(TIMEOUT);
    assert_eq!(status.exit_code(), 101, "{status:?}");
    assert_restored(&pty, true);
    // The message is printed after leaving the alternate screen, so it is on the main screen.
    let raw = pty.raw_bytes();
    let left = last(&raw, "\x1b[?1049l").expect("left alternate screen");
    let message = last(&raw, "requested panic").expect("panic message printed");
    assert!(message > left, "panic message printed before restoring");
    assert!(pty.screen_text().contains("requested panic"));
}

#[test]
fn panic_on_another_thread_restores_and_exits() {
    let mut pty = start("keys");
    pty.send_keys("t");
    let status = pty.wait_exit(TIMEOUT);
    assert_eq!(status.exit_code(), 101, "{status:?}");
    assert_restored(&pty, false);
    assert!(pty.screen_text().contains("worker panic"));
    assert!(!pty.screen_text().contains("SURVIVED"));
}

fn kill(pty: &Pty, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(pty.pid()).expect("pid fits");
    // SAFETY: sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
}

#[test]
fn sigterm_restores() {
    let mut pty = start("sigterm");
    kill(&pty, libc::SIGTERM);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}");
    assert_restored(&pty, true);
    assert!(pty.screen_text().contains("RESTORED after Terminate"));
}

#[test]
fn sighup_restores() {
    let mut pty = start("sigterm");
    kill(&pty, libc::SIGHUP);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}");
    assert_restored(&pty, true);
}

/// The terminal itself closing (not just its SIGHUP): every write on the way out fails, and
/// none of those failures may turn into a panic (`eprintln!` panics when stderr fails; in the
/// panic hook that aborts). The exit is a clean one.
#[test]
fn hangup_of_the_terminal_itself_exits_cleanly() {
    let mut pty = start("sigterm");
    pty.hang_up();
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}");
}

#[test]
fn suspend_restores_then_reenters_and_redraws() {
    let mut pty = start("keys");
    let before = pty.raw_bytes().len();
    // In the pty the example leads an orphaned process group, so the kernel discards its
    // SIGTSTP and `suspend` returns at once: what is checked is leave → re-enter → redraw.
    pty.send_keys("z");
    pty.wait_for_text("RESUMED", TIMEOUT);
    let raw = pty.raw_bytes()[before..].to_vec();
    let left = last(&raw, "\x1b[?1049l").expect("left alternate screen on suspend");
    let raw_off_then_on = last(&raw, "\x1b[?1049h").expect("re-entered alternate screen");
    assert!(raw_off_then_on > left);
    pty.with_screen(|s| assert!(s.alternate_screen() && s.hide_cursor()));
    assert!(!pty.is_cooked(), "raw mode back on after resume");
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty, false);
}

#[test]
fn mouse_capture_toggles_at_runtime() {
    let mut pty = start("keys");
    pty.with_screen(|s| assert_eq!(s.mouse_protocol_mode(), vt100::MouseProtocolMode::None));
    pty.send_keys("m");
    pty.wait_for_text("MOUSE ON", TIMEOUT);
    pty.with_screen(|s| assert_ne!(s.mouse_protocol_mode(), vt100::MouseProtocolMode::None));
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty, true);
}

#[test]
fn resize_is_seen_by_the_program() {
    let mut pty = start("keys");
    pty.resize(100, 30);
    pty.wait_for_text("SIZE 100x30", TIMEOUT);
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn paste_arrives_as_one_event_and_shift_enter_is_distinct() {
    let mut pty = start("keys");
    pty.send_paste("one\ntwo\nthree");
    pty.wait_for_text("PASTED 3 lines", TIMEOUT);
    pty.send_keys(keys::SHIFT_ENTER);
    pty.wait_for_text("KEY Enter KeyModifiers(SHIFT)", TIMEOUT);
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("KEY Enter KeyModifiers(0x0)", TIMEOUT);
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}
