#![cfg(unix)]
//! `[notify] command` and the terminal's title, the real binary in a pty on the
//! simulator: the command receives the news as JSON on stdin, without the token in its
//! environment; one that hangs is killed with its process group at its timeout; the title
//! counts the decisions waiting and is given back at exit. The fleet rings the clock's
//! news — a deadline coming, a workspace reclaimed, the sandbox budget passed — for every
//! session, each once across fleet and session. The test meets the commands through fifos
//! they write, never by waiting a while.

use crate::support;
use crate::support::app::{quit, spawn};
use crate::support::live::wait_live;
use gobare_api::model::{AgentRequest, CreateSession};
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(40);

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// What the first writer of fifo `path` writes, read on a thread of its own (opening a
/// fifo waits for its writer).
fn read_fifo(path: &Path) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&path) {
            let _ = f.read_to_string(&mut text);
        }
        let _ = tx.send(text);
    });
    rx
}

/// A home whose config rings always and runs `command` (a TOML value).
fn home_with(command: &str, extra: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!("[notify]\nwhen = \"always\"\ncommand = {command}\n{extra}"),
    )
    .unwrap();
    home
}

/// Whether process `pid` ends within `within`, waited for on a pidfd.
fn ends_within(pid: i32, within: Duration) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    let mut pfd = libc::pollfd {
        fd: fd as i32,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; the descriptor is ours and closed after.
    let ready = unsafe { libc::poll(&mut pfd, 1, within.as_millis() as i32) };
    unsafe { libc::close(fd as i32) };
    ready == 1
}

#[test]
fn a_notify_command_reads_the_news_as_json_without_the_token_and_the_title_counts() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("nightly export"));
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("news");
    mkfifo(&fifo);
    // The JSON, then how many lines of its environment name the token.
    let script = format!(
        "{{ cat; echo; env | grep -c '^GOBARE_TOKEN=' || true; }} > '{}'",
        fifo.display()
    );
    let home = home_with(&format!("[\"sh\", \"-c\", {script:?}]"), "");
    let news = read_fifo(&fifo);
    let mut pty = spawn(&["attach", &session], &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    sim.within(|s| s.send_message(&session, "restart the worker #approval"));
    let said = news.recv_timeout(TIMEOUT).expect("the command ran");
    let mut lines = said.lines().filter(|l| !l.is_empty());
    let event: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(event["event"], "approval", "{event}");
    assert_eq!(event["session_id"], session.as_str());
    assert_eq!(event["session_title"], "nightly export");
    assert!(
        event["text"]
            .as_str()
            .unwrap()
            .contains("asks for approval"),
        "{event}"
    );
    assert!(event["at"].as_i64().unwrap() > 0);
    assert_eq!(
        lines.next(),
        Some("0"),
        "GOBARE_TOKEN is not in its environment"
    );
    // The title counts the one decision waiting.
    let title = "\x1b]2;gobare · 1 needs you\x07";
    support::app::until(
        "the title counting the approval",
        TIMEOUT,
        || {
            String::from_utf8_lossy(&pty.raw_bytes())
                .contains(title)
                .then_some(())
        },
        || {
            String::from_utf8_lossy(&pty.raw_bytes())
                .escape_debug()
                .to_string()
        },
    );
    let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    let pushed = raw.find("\x1b[22;0t").expect("the old title saved first");
    assert!(pushed < raw.find(title).unwrap());
    assert!(quit(&mut pty, TIMEOUT).success());
    let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    let restored = raw
        .rfind("\x1b]2;\x07\x1b[23;0t")
        .expect("the title given back");
    assert!(restored > raw.rfind(title).unwrap(), "after the last title");
}

#[test]
fn a_hung_notify_command_is_killed_with_its_process_group_at_its_timeout() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("hangs"));
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pids");
    mkfifo(&fifo);
    // Never reads its input, starts a child that never ends, says both pids, waits.
    let script = format!("sleep 100000 & echo \"$$ $!\" > '{}'; wait", fifo.display());
    let home = home_with(
        &format!("[\"sh\", \"-c\", {script:?}]"),
        "command_timeout_secs = 1\n",
    );
    let pids = read_fifo(&fifo);
    let mut pty = spawn(&["attach", &session], &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    sim.within(|s| s.send_message(&session, "which host? #question"));
    let said = pids.recv_timeout(TIMEOUT).expect("the command ran");
    let pids: Vec<i32> = said
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{said:?}");
    // The app is still running: only the timeout can have ended them.
    for pid in &pids {
        assert!(ends_within(*pid, TIMEOUT), "{pid} still running");
    }
    pty.wait_for_text("which host", TIMEOUT);
    assert!(quit(&mut pty, TIMEOUT).success());
    let logs = crate::support::cli::read_logs(&home.path().join("state/gobare-tui/logs"));
    assert!(
        logs.contains("killed with its process group"),
        "the kill is logged: {logs}"
    );
}

/// Every JSON line the commands write to fifo `path`, in order. Held open for writing
/// too, so the fifo never reads as ended between two commands (one opening it as the
/// last one closes it would write to no reader).
fn read_fifo_lines(path: &Path) -> mpsc::Receiver<serde_json::Value> {
    use std::io::BufRead;
    let (tx, rx) = mpsc::channel();
    let fifo = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("the fifo opens");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(fifo).lines() {
            let Ok(line) = line else {
                return;
            };
            if line.trim().is_empty() {
                continue;
            }
            let event = serde_json::from_str(&line).expect("one JSON event a line");
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    rx
}

/// A session declaring `lookup_order` with a ten-minute timeout: a call to it expires ten
/// minutes after it is made.
fn with_lookup(sim: &support::sim::Sim, title: &str) -> String {
    sim.sim.create_session_from(CreateSession {
        title: Some(title.into()),
        agent: Some(AgentRequest {
            tools: Some(vec![serde_json::json!({
                "type": "function", "name": "lookup_order",
                "parameters": {"type": "object"}, "timeout_seconds": 600
            })]),
            ..AgentRequest::default()
        }),
        ..CreateSession::default()
    })
}

/// The next event the commands said, as (session, kind, the whole event); the screen
/// and the app's log when none comes.
fn next_said(
    news: &mpsc::Receiver<serde_json::Value>,
    pty: &gobare_test_support::pty::Pty,
    home: &tempfile::TempDir,
) -> (String, String, serde_json::Value) {
    let Ok(event) = news.recv_timeout(TIMEOUT) else {
        let logs = crate::support::cli::read_logs(&home.path().join("state/gobare-tui/logs"));
        panic!(
            "no notify command ran:\n{}\nlog:\n{logs}",
            pty.screen_text()
        );
    };
    (
        event["session_id"].as_str().unwrap_or_default().to_string(),
        event["event"].as_str().unwrap_or_default().to_string(),
        event,
    )
}

#[test]
fn the_fleet_rings_every_sessions_deadline_reclaim_and_budget_once() {
    // Untagged messages call `lookup_order`: with the session's declared timeout.
    let config = SimConfig {
        scenario: "function".into(),
        ..SimConfig::for_tests()
    };
    let sim = support::sim::start(config);
    let orders = with_lookup(&sim, "order desk");
    let site = sim.sim.create_session(Some("site build"));
    let metered = sim.sim.create_session(Some("metered job"));
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("news");
    mkfifo(&fifo);
    // One write of the whole line: lines of commands run together do not mix.
    let script = format!("printf '%s\\n' \"$(cat)\" > '{}'", fifo.display());
    let home = home_with(
        &format!("[\"sh\", \"-c\", {script:?}]"),
        "on = [\"deadline\", \"workspace_reclaimed\", \"budget\"]\n\
         [budget]\nsandbox_minutes = 1\n",
    );
    let news = read_fifo_lines(&fifo);
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for_text("Fleet · 3 sessions", TIMEOUT);
    // The metered session's usage read while under its budget: drawn, so looked at.
    pty.wait_for(
        "the metered session's usage",
        |s| {
            s.contents()
                .lines()
                .any(|l| l.contains("metered job") && l.contains(" 0s "))
        },
        TIMEOUT,
    );

    sim.within(|s| s.send_message(&orders, "where is order A-4471?"));
    sim.within(|s| s.send_message(&site, "build the site #recovery"));
    sim.sim
        .add_sandbox_time(&metered, Duration::from_secs(2 * 60));
    sim.within(|s| s.send_message(&metered, "one more #quick"));
    // Three alarms close together: the first once it has held, the rest gathered into one
    // run a window later that counts them and names the first.
    let mut said: Vec<(String, String)> = Vec::new();
    let mut counted = 0;
    while counted < 3 {
        let (session, kind, event) = next_said(&news, &pty, &home);
        let count = event["count"].as_u64().expect("how many it tells");
        let text = event["text"].as_str().unwrap();
        assert_eq!(event["skipped"], 0, "{event}");
        match kind.as_str() {
            _ if count > 1 => assert!(text.contains(&format!("{count} to look at: ")), "{event}"),
            "deadline" => {
                assert_eq!(event["session_title"], "order desk", "{event}");
                assert!(text.contains("lookup_order expires in 10m"), "{event}");
                let expires_at = event["expires_at"].as_i64().expect("its deadline");
                let now = gobare_api::clock::unix_ms();
                assert!((now..=now + 600_000).contains(&expires_at), "{event}");
            }
            "workspace_reclaimed" => {
                assert_eq!(event["session_title"], "site build", "{event}")
            }
            "budget" => assert!(
                text.contains("metered job: sandbox time passed the budget of 1 minute"),
                "{event}"
            ),
            _ => panic!("not chosen: {event}"),
        }
        counted += count;
        said.push((session, kind));
    }
    assert_eq!(counted, 3, "each once: {said:?}");
    assert!(said.len() <= 2, "one run a window: {said:?}");
    let expected = [
        (orders.clone(), "deadline".to_string()),
        (site.clone(), "workspace_reclaimed".to_string()),
        (metered.clone(), "budget".to_string()),
    ];
    assert!(said.iter().all(|s| expected.contains(s)), "{said:?}");

    // Into a session and back: the fleet behind rings a new session's deadline, and the
    // three above are not rung again, in the session or back in the fleet.
    pty.send_keys(keys::ENTER);
    wait_live(&pty, TIMEOUT);
    let second = with_lookup(&sim, "second desk");
    sim.within(|s| s.send_message(&second, "and order B-1?"));
    let (session, kind, _) = next_said(&news, &pty, &home);
    assert_eq!((session, kind), (second.clone(), "deadline".into()));
    pty.send_keys(keys::CTRL_O);
    pty.wait_for_text("Fleet · 4 sessions", TIMEOUT);
    let third = with_lookup(&sim, "third desk");
    sim.within(|s| s.send_message(&third, "and order C-2?"));
    let (session, kind, _) = next_said(&news, &pty, &home);
    assert_eq!((session, kind), (third.clone(), "deadline".into()));
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}
