//! The app inside tmux as it ships (`-f /dev/null`: `set-clipboard external`,
//! `allow-passthrough off`, `focus-events off`), on a server of its own: what a person gets
//! from copy there, read back from tmux itself.

use crate::support;

use std::process::Command;
use std::time::Duration;

use crate::support::app::until;
use crate::support::cli::BIN;
use gobare_api::model::{EventPayload, Text};
use gobare_sim::SimConfig;

const TIMEOUT: Duration = Duration::from_secs(40);

/// A tmux server on its own socket, killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(home: &tempfile::TempDir, command: &str, env: &[(&str, String)]) -> Tmux {
        let socket = format!("gobare-test-{}-{}", std::process::id(), rand_suffix());
        let mut new = Command::new("tmux");
        new.args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"]);
        new.args(["-x", "140", "-y", "44"]);
        for (k, v) in env {
            new.args(["-e", &format!("{k}={v}")]);
        }
        new.arg(command);
        new.current_dir(home.path());
        let status = new.status().expect("tmux runs");
        assert!(status.success(), "tmux new-session: {status:?}");
        Tmux { socket }
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p"])
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    fn wait_for(&self, what: &str, check: impl Fn(&str) -> bool) {
        until(
            what,
            TIMEOUT,
            || check(&self.screen()).then_some(()),
            || self.screen(),
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn app_env(home: &tempfile::TempDir, sim: &gobare_sim::Simulator) -> Vec<(&'static str, String)> {
    vec![
        ("TERM", "tmux-256color".into()),
        (
            "XDG_STATE_HOME",
            home.path().join("state").display().to_string(),
        ),
        (
            "XDG_CONFIG_HOME",
            home.path().join("config").display().to_string(),
        ),
        ("GOBARE_API", sim.url().to_string()),
        ("GOBARE_TOKEN", sim.token()),
    ]
}

#[test]
fn copy_inside_default_tmux_lands_in_a_tmux_buffer_redacted_and_says_so() {
    if Command::new("tmux").arg("-V").output().is_err() {
        panic!("tmux is needed for this test (.ci/run installs it)");
    }
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("copy in tmux"));
    sim.sim.emit(
        &session,
        EventPayload::UserMessage(Text {
            text: "deploy with gbr_pat_abcdefghijklmnopqrstuvwxyz0123 now".into(),
        }),
    );
    let home = tempfile::tempdir().unwrap();
    let command = format!("{BIN} attach {session}");
    let tmux = Tmux::start(&home, &command, &app_env(&home, &sim.sim));
    tmux.wait_for("the message", |s| s.contains("deploy with"));
    tmux.keys(&["BTab"]);
    tmux.wait_for("the panes", |s| s.contains("Panes · "));
    tmux.keys(&["k"]);
    tmux.wait_for("a selection", |s| s.contains("[selected"));
    tmux.keys(&["c"]);
    tmux.wait_for("where the copy went", |s| {
        s.contains("to the tmux buffer and the clipboard")
    });
    let buffer = tmux.run(&["show-buffer"]);
    assert_eq!(buffer, "deploy with gbr_pat_[redacted] now");
}

/// What the app wrote into the pane (`pipe-pane -O`), as text.
fn piped(path: &std::path::Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
}

#[test]
fn notifications_ring_inside_default_tmux_name_the_session_and_ring_once_across_a_drop() {
    let sim = support::sim::start(SimConfig {
        ping_interval: Duration::from_millis(200),
        ..SimConfig::for_tests()
    });
    let session = sim.sim.create_session(Some("nightly export"));
    let home = tempfile::tempdir().unwrap();
    let command = format!("{BIN} attach {session}");
    let tmux = Tmux::start(&home, &command, &app_env(&home, &sim.sim));
    let out = home.path().join("pane.out");
    tmux.run(&["pipe-pane", "-O", &format!("cat >> {}", out.display())]);
    tmux.wait_for("live", |s| s.contains("● live"));
    sim.within(|s| s.send_message(&session, "restart the worker #approval"));
    tmux.wait_for("the approval", |s| {
        s.contains("The agent asks to run a tool")
    });
    let rung = "]9;gobare: nightly export: the agent asks for approval";
    until(
        "the notification",
        TIMEOUT,
        || piped(&out).contains(rung).then_some(()),
        || piped(&out),
    );
    // The stream drops and comes back; the session is read again, and is not news again.
    let reads = |sim: &gobare_sim::Simulator| {
        let path = format!("GET /v1/sessions/{session}");
        sim.requests().iter().filter(|r| **r == path).count()
    };
    let reads_before = reads(&sim.sim);
    let opens_before = sim.sim.stream_opens().len();
    sim.sim.set_faults(gobare_sim::Faults {
        drop_every_n_frames: Some(1),
        ..Default::default()
    });
    // A frame for the fault to drop the connection at.
    sim.sim.emit(
        &session,
        EventPayload::UserMessage(Text {
            text: "one more frame".into(),
        }),
    );
    until(
        "a reconnect",
        TIMEOUT,
        || (sim.sim.stream_opens().len() > opens_before).then_some(()),
        || tmux.screen(),
    );
    sim.sim.set_faults(gobare_sim::Faults::default());
    until(
        "the session read again",
        TIMEOUT,
        || (reads(&sim.sim) > reads_before).then_some(()),
        || format!("{:?}", sim.sim.requests()),
    );
    tmux.wait_for("live again", |s| s.contains("● live"));
    assert_eq!(
        piped(&out).matches(rung).count(),
        1,
        "rang again after the drop"
    );
    assert!(
        piped(&out).contains('\x07'),
        "the bell, which tmux as it ships passes on"
    );
}

#[test]
fn the_fleet_rings_inside_default_tmux_naming_the_session_once_across_a_dropped_stream() {
    let sim = support::sim::start(SimConfig {
        ping_interval: Duration::from_millis(200),
        ..SimConfig::for_tests()
    });
    // Already waiting when the fleet opens: not news.
    let before = sim.sim.create_session(Some("waited before"));
    sim.within(|s| s.send_message(&before, "restart it #approval"));
    sim.until_waiting(&before);
    let nightly = sim.sim.create_session(Some("nightly export"));
    let billing = sim.sim.create_session(Some("billing migration"));
    let later = sim.sim.create_session(Some("asked later"));
    let home = tempfile::tempdir().unwrap();
    let command = format!("{BIN} fleet");
    let tmux = Tmux::start(&home, &command, &app_env(&home, &sim.sim));
    let out = home.path().join("pane.out");
    tmux.run(&["pipe-pane", "-O", &format!("cat >> {}", out.display())]);
    tmux.wait_for("the fleet, the waiting session listed", |s| {
        s.contains("4 sessions · 1 needs you") && s.contains("needs you: approval")
    });
    let rung = |what: &str| format!("]9;gobare: {what}\x07");
    let wait_rung = |what: &str| {
        until(
            what,
            TIMEOUT,
            || piped(&out).contains(&rung(what)).then_some(()),
            || piped(&out).escape_debug().to_string(),
        )
    };
    sim.within(|s| s.send_message(&nightly, "restart the worker #approval"));
    wait_rung("nightly export: needs you: approval");
    sim.within(|s| s.send_message(&billing, "apply migration 0042 #error"));
    wait_rung("billing migration: turn failed");
    // The org stream drops and comes back.
    let opens_before = sim.sim.stream_opens().len();
    sim.sim.set_faults(gobare_sim::Faults {
        drop_every_n_frames: Some(1),
        ..Default::default()
    });
    sim.sim.emit(
        &nightly,
        EventPayload::UserMessage(Text {
            text: "one more frame".into(),
        }),
    );
    until(
        "a reconnect",
        TIMEOUT,
        || (sim.sim.stream_opens().len() > opens_before).then_some(()),
        || tmux.screen(),
    );
    sim.sim.set_faults(gobare_sim::Faults::default());
    tmux.wait_for("the stream back", |s| !s.contains("org stream dropped"));
    // News after the reconnect still rings: the silence below is not a deaf fleet.
    sim.within(|s| s.send_message(&later, "which host? #question"));
    wait_rung("asked later: needs you: question");
    let bytes = piped(&out);
    assert_eq!(
        bytes
            .matches(&rung("nightly export: needs you: approval"))
            .count(),
        1,
        "rang again after the drop"
    );
    assert_eq!(
        bytes
            .matches(&rung("billing migration: turn failed"))
            .count(),
        1
    );
    assert!(
        !bytes.contains("waited before: needs you"),
        "what waited when the fleet opened is not news"
    );
    assert!(bytes.contains('\x07'), "the bell");
}
