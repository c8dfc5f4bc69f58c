//! The shell key against a fake `ssh` first on PATH that records its arguments and waits
//! for a line typed on the terminal: off until `[shell]` is configured (the key says how to
//! turn it on); configured, the UI gives the terminal back (main screen, cooked), `ssh`
//! gets `-p PORT [options] s-<session>@HOST`, and when it exits the UI is back (alternate
//! screen re-entered, screen redrawn).

use crate::support;
use crate::support::app::{bottom, launch_on, quit, status_line};
use crate::support::live::{attach_new, wait_live};
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

const FAKE_SSH: &str = "#!/bin/sh\n\
printf '%s\\n' \"$@\" > \"$FAKE_SSH_RECORD\"\n\
echo FAKE-SSH-READY\n\
read line\n\
echo \"$line\" >> \"$FAKE_SSH_RECORD\"\n";

fn to_panes(pty: &mut Pty) {
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
}

#[test]
fn the_shell_key_says_how_to_turn_it_on_until_configured() {
    let sim = support::sim::start(SimConfig::for_tests());
    let (_, _home, mut pty) = attach_new(&sim.sim, "shell", TIMEOUT);
    to_panes(&mut pty);
    pty.send_keys("s");
    pty.wait_for(
        "the notice",
        |s| status_line(s).contains("the shell key is off: set host under [shell]"),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn the_shell_key_runs_ssh_into_the_workspace_and_comes_back() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("shell"));
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[shell]\nhost = \"gw.gobare.test\"\nport = 2200\noptions = [\"-o\", \"BatchMode=no\"]\n",
    )
    .unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let ssh = bin.join("ssh");
    std::fs::write(&ssh, FAKE_SSH).unwrap();
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let record = home.path().join("ssh-args");

    let path = std::env::var("PATH").unwrap_or_default();
    let mut pty = launch_on(&sim.sim, &["attach", &session], &home)
        .env("PATH", format!("{}:{path}", bin.display()))
        .env("FAKE_SSH_RECORD", &record)
        .spawn();
    wait_live(&pty, TIMEOUT);
    to_panes(&mut pty);

    pty.send_keys("s");
    pty.wait_for_text("FAKE-SSH-READY", TIMEOUT);
    assert!(pty.is_cooked(), "ssh runs on a cooked terminal");
    assert!(
        !pty.with_screen(|s| s.alternate_screen()),
        "ssh runs on the main screen"
    );
    let args = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        [
            "-p",
            "2200",
            "-o",
            "BatchMode=no",
            &format!("s-{session}@gw.gobare.test")
        ]
    );
    let before_exit = pty.raw_bytes().len();

    pty.send_keys("exit\r");
    pty.wait_for(
        "the UI back, with the notice",
        |s| s.alternate_screen() && status_line(s).contains("back from the shell"),
        TIMEOUT,
    );
    let after: Vec<u8> = pty.raw_bytes()[before_exit..].to_vec();
    let after = String::from_utf8_lossy(&after);
    assert!(after.contains("\x1b[?1049h"), "alternate screen re-entered");
    assert!(after.contains("\x1b[2J"), "the screen cleared and redrawn");
    assert!(
        pty.screen_text().contains("Transcript"),
        "{}",
        pty.screen_text()
    );
    assert!(
        std::fs::read_to_string(&record)
            .unwrap()
            .ends_with("exit\n"),
        "the line typed went to ssh, not to the app"
    );
    assert!(!pty.is_cooked(), "raw again");
    assert!(quit(&mut pty, TIMEOUT).success());
}
