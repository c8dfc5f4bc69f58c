//! A panic inside the real app's loop, forced with `GOBARE_TUI_DEBUG_PANIC=1` once the first
//! frame is drawn: the terminal is given back before the message is printed, the process
//! exits with status 101, and the token appears nowhere — not in anything written to the
//! terminal (stdout and stderr both go to the pty, as they do for a user), not in the log or
//! state files — and the report does not list the environment.
#![cfg(unix)]
// Only debug builds can be made to panic on purpose (`src/app/shared/debug_panic.rs`).
#![cfg(debug_assertions)]

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::app::launch;
use crate::support::restore::{assert_restored, last};
use gobare_sim::SimConfig;
use gobare_test_support::pty::Pty;
use gobare_tui::app::shared::debug_panic;
use tempfile::TempDir;

const TIMEOUT: Duration = Duration::from_secs(30);
const TOKEN: &str = "gbr_pat_Hx4PanicCanary7mQ1";
/// Set in the app's environment only to be looked for in its output: a report that lists
/// environment variables would show it (and GOBARE_TOKEN with it).
const ENV_CANARY: (&str, &str) = ("GOBARE_TUI_TEST_ENV_CANARY", "envCanary5tR8");

struct Run {
    pty: Pty,
    home: TempDir,
    session: String,
}

/// How the app gets the token.
enum TokenFrom {
    Env,
    File(PathBuf),
}

/// The session's title.
const TITLE: &str = "panic canary";

/// Attaches the binary to a fresh session of a simulator that accepts only [`TOKEN`], with a
/// home of its own, the panic requested, and `extra` arguments and environment; waits for it
/// to exit.
fn run_until_panic(token: TokenFrom, args: &[&str], env: &[(&str, &str)]) -> Run {
    let sim = support::sim::start(SimConfig {
        token: Some(TOKEN.into()),
        ..SimConfig::for_tests()
    });
    let session = sim.sim.create_session(Some(TITLE));
    let home = tempfile::tempdir().unwrap();
    let mut args = args.to_vec();
    args.extend(["attach", &session]);
    if let TokenFrom::File(path) = &token {
        args.extend(["--token-file", path.to_str().expect("a UTF-8 path")]);
    }
    let mut app = launch(&args, &home)
        .size(100, 30)
        .env_remove("GOBARE_TUI_STATS")
        .env("HOME", home.path())
        .env("GOBARE_API", sim.sim.url().as_str())
        .env(debug_panic::ENV_VAR, "1")
        .env(ENV_CANARY.0, ENV_CANARY.1);
    if let TokenFrom::Env = token {
        app = app.env("GOBARE_TOKEN", TOKEN);
    }
    for (name, value) in env {
        app = app.env(name, value);
    }
    let mut pty = app.spawn();
    let status = pty.wait_exit(TIMEOUT);
    assert_eq!(
        status.exit_code(),
        101,
        "a panic exits with 101: {status:?}\n{}",
        pty.screen_text()
    );
    Run { pty, home, session }
}

impl Run {
    /// Everything written to the terminal, as text.
    fn output(&self) -> String {
        String::from_utf8_lossy(&self.pty.raw_bytes()).into_owned()
    }

    /// The app was really up: a frame with the session's status bar was drawn on the
    /// alternate screen before the restore.
    fn assert_a_frame_was_drawn(&self) {
        let raw = self.pty.raw_bytes();
        let entered = last(&raw, "\x1b[?1049h").expect("entered the alternate screen");
        let left = last(&raw, "\x1b[?1049l").expect("left the alternate screen");
        let drawn = String::from_utf8_lossy(&raw[entered..left]);
        assert!(
            // By its id until the session is read, by its title after.
            drawn.contains(&self.session) || drawn.contains(TITLE),
            "no frame showing the session was drawn before the panic:\n{drawn:?}"
        );
    }

    /// The panic message is printed after the terminal was restored, so it lands readable
    /// on the main screen.
    fn assert_message_after_restore(&self) {
        let raw = self.pty.raw_bytes();
        let left = last(&raw, "\x1b[?1049l").expect("left the alternate screen");
        let message = last(&raw, debug_panic::MESSAGE).expect("panic message printed");
        assert!(message > left, "panic message printed before restoring");
    }

    /// Neither the token (nor a recognisable part of it) nor the environment canary is in the
    /// terminal output or in any file the app wrote under its home.
    fn assert_no_secrets(&self) {
        let files = files_under(self.home.path());
        assert!(
            files.iter().any(|p| p.to_string_lossy().contains("logs")),
            "expected a log file under the home: {files:?}"
        );
        let mut places = vec![("the terminal output".to_string(), self.output())];
        for path in files {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            places.push((path.display().to_string(), text));
        }
        for (place, text) in places {
            assert!(
                !text.contains(TOKEN),
                "the token appears in {place}:\n{text}"
            );
            assert!(
                !text.contains("PanicCanary"),
                "part of the token appears in {place}:\n{text}"
            );
            assert!(
                !text.contains(ENV_CANARY.1),
                "the environment is listed in {place}:\n{text}"
            );
        }
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_panic_in_the_ui_loop_restores_the_terminal_then_reports_without_the_token() {
    let run = run_until_panic(TokenFrom::Env, &[], &[("RUST_BACKTRACE", "0")]);
    run.assert_a_frame_was_drawn();
    assert_restored(&run.pty, true);
    run.assert_message_after_restore();
    let screen = run.pty.screen_text();
    assert!(
        screen.contains(debug_panic::MESSAGE),
        "panic message not readable on the main screen:\n{screen}"
    );
    run.assert_no_secrets();
}

/// The most a user can ask the report to show: `--verbose` (color-eyre's environment
/// section) and a full backtrace; the token comes from a file outside the app's home.
#[test]
fn a_verbose_panic_report_with_a_backtrace_shows_no_token_and_no_environment() {
    let secrets = tempfile::tempdir().unwrap();
    let token_file = secrets.path().join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
    std::fs::set_permissions(&token_file, private).unwrap();
    let run = run_until_panic(
        TokenFrom::File(token_file),
        &["--verbose"],
        &[("RUST_BACKTRACE", "full")],
    );
    run.assert_a_frame_was_drawn();
    assert_restored(&run.pty, true);
    run.assert_message_after_restore();
    assert!(
        run.output().contains("BACKTRACE"),
        "the backtrace was asked for and printed:\n{}",
        run.pty.screen_text()
    );
    run.assert_no_secrets();
}
