//! Shared by the reliability tests (`resume_*`, `faults_*`, `malformed_*`, `token_*`): a
//! simulator with a fast `retry:` hint, the real `tail` binary, and a consumer that feeds
//! the stream into the app's model exactly as the app does.

use gobare_api::auth::Token;
use gobare_api::stream::ConnectionState;
use gobare_api::stream::{StreamOptions, StreamTarget, StreamUpdate};
use gobare_sim::{SimConfig, Simulator};
use gobare_tui::session::{Session, Update};
use gobare_tui::ui::{Screen, theme::Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Duration;

/// The `retry:` hint the test simulators send: small, so a test with hundreds of drops
/// stays fast. The client still never reconnects faster than its own 250 ms floor.
pub(crate) const RETRY_MS: u64 = 1;

/// The client's floor between reconnects (`api::stream::backoff::MIN_RECONNECT`).
pub(crate) const MIN_RECONNECT: Duration = gobare_api::stream::backoff::MIN_RECONNECT;

pub(crate) fn sim_config() -> SimConfig {
    SimConfig {
        retry_ms: RETRY_MS,
        ..SimConfig::for_tests()
    }
}

pub(crate) async fn sim() -> Simulator {
    Simulator::start(sim_config()).await.unwrap()
}

/// Stream options for one session of `sim`, replaying from `from`.
pub(crate) fn options(sim: &Simulator, session: &str, from: Option<u64>) -> StreamOptions {
    StreamOptions {
        api: sim.url(),
        token: Token::new(sim.token()),
        target: StreamTarget::Session(session.to_string()),
        from,
        idle_timeout: Duration::from_secs(20),
        max_backoff: Duration::from_secs(2),
        // The tests' simulator frees a closed stream's slot at once.
        slot_release: Duration::ZERO,
        ..StreamOptions::default()
    }
}

/// What one consumer observed: the model, the persisted seqs it applied (in order), the
/// connection states, and the updates skipped (and cursor anomalies reported).
pub(crate) struct Consumed {
    pub(crate) view: Session,
    pub(crate) applied: Vec<u64>,
    pub(crate) states: Vec<ConnectionState>,
    pub(crate) skipped: Vec<String>,
}

impl Consumed {
    pub(crate) fn new(session: &str) -> Self {
        Consumed {
            view: Session::new(session).with_origin("127.0.0.1", true),
            applied: Vec::new(),
            states: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Feeds one stream update into the model the way the app does.
    pub(crate) fn apply(&mut self, update: StreamUpdate) {
        match update {
            StreamUpdate::Run(run) => {
                for mut frame in run.frames() {
                    frame.decode_in_place();
                    self.apply(StreamUpdate::Frame(frame));
                }
            }
            StreamUpdate::Frame(frame) => match frame.event {
                Ok(ev) => {
                    let seq = ev.seq;
                    let before = self.view.last_seq();
                    self.view.apply(Update::Event(ev));
                    if let Some(seq) = seq
                        && self.view.last_seq() != before
                    {
                        self.applied.push(seq);
                    }
                }
                Err(e) => {
                    self.skipped.push(e.0.to_string());
                    self.view.apply(Update::Skipped {
                        reason: e.0.into_owned(),
                    });
                }
            },
            StreamUpdate::Skipped { reason } | StreamUpdate::Lost { reason, .. } => {
                self.skipped.push(reason.clone());
                self.view.apply(Update::Skipped { reason });
            }
            // The simulator never sends an inconsistent cursor: count it as a fault.
            StreamUpdate::Anomaly { reason } => {
                self.skipped.push(format!("anomaly: {reason}"));
            }
            StreamUpdate::State(state) => {
                self.states.push(state.clone());
                self.view.apply(Update::Connection(state));
            }
        }
    }

    /// Reads updates until the model has applied `last_seq`, or panics after `limit`.
    pub(crate) async fn until_seq(
        &mut self,
        updates: &mut gobare_api::stream::Updates,
        last_seq: u64,
        limit: Duration,
    ) {
        let reached = tokio::time::timeout(limit, async {
            while self.view.last_seq() < Some(last_seq) {
                match updates.recv().await {
                    Some(u) => self.apply(u),
                    None => return false,
                }
            }
            true
        })
        .await;
        assert!(
            matches!(reached, Ok(true)),
            "model stopped at {:?} of {last_seq} (states: {:?})",
            self.view.last_seq(),
            self.states.iter().rev().take(3).collect::<Vec<_>>()
        );
    }

    /// Waits for one connection state matching `pred`, applying everything on the way.
    pub(crate) async fn until_state(
        &mut self,
        updates: &mut gobare_api::stream::Updates,
        what: &str,
        limit: Duration,
        pred: impl Fn(&ConnectionState) -> bool,
    ) -> ConnectionState {
        let found = tokio::time::timeout(limit, async {
            loop {
                let u = updates.recv().await?;
                let hit = match &u {
                    StreamUpdate::State(s) if pred(s) => Some(s.clone()),
                    _ => None,
                };
                self.apply(u);
                if hit.is_some() {
                    return hit;
                }
            }
        })
        .await;
        match found {
            Ok(Some(s)) => s,
            _ => panic!(
                "no {what} within {limit:?}; last states {:?}",
                self.states.iter().rev().take(5).collect::<Vec<_>>()
            ),
        }
    }

    /// Waits in `Retrying` states (the waits the client announced).
    pub(crate) fn announced_waits(&self) -> Vec<(Duration, String)> {
        self.states
            .iter()
            .filter_map(|s| match s {
                ConnectionState::Retrying { in_ms, reason, .. } => {
                    Some((Duration::from_millis(*in_ms), reason.clone()))
                }
                _ => None,
            })
            .collect()
    }
}

/// The whole screen for a model, as text (for "the same events give the same screen").
pub(crate) fn screen(view: &Session, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| Screen::new().draw(f, view, &Theme::no_color(), None))
        .unwrap();
    term.backend().to_string()
}

/// The `seq` of a printed `tail` line, `None` for transient frames.
pub(crate) fn line_seq(line: &str) -> Option<u64> {
    let v: serde_json::Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    v["seq"].as_u64()
}

/// The text of every file under `dir`, recursively.
pub(crate) fn read_tree(dir: &std::path::Path) -> String {
    let mut all = String::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                all.push_str(&read_tree(&path));
            } else {
                all.push_str(&String::from_utf8_lossy(
                    &std::fs::read(&path).unwrap_or_default(),
                ));
            }
        }
    }
    all
}

/// Sends SIGTERM to a child (the way a service manager stops `tail`).
pub(crate) fn terminate(child: &tokio::process::Child) {
    let pid = child.id().expect("child still running") as libc::pid_t;
    // SAFETY: kill(2) on our own child's pid; no memory is involved.
    let rc = unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(rc, 0, "kill -TERM {pid}");
}

/// What a `tail` run printed.
pub(crate) struct TailRun {
    pub(crate) lines: Vec<String>,
    pub(crate) stderr: String,
    pub(crate) code: Option<i32>,
    /// Everything under the run's state directory (the log files).
    pub(crate) logs: String,
}

impl TailRun {
    pub(crate) fn persisted(&self) -> Vec<u64> {
        self.lines.iter().filter_map(|l| line_seq(l)).collect()
    }
}

/// Runs `gobare-tui [extra] tail SESSION --from FROM` against `sim` until it has printed
/// `last_seq`, then stops it with SIGTERM (it follows live events forever otherwise).
pub(crate) async fn tail_until(
    sim: &Simulator,
    session: &str,
    from: u64,
    last_seq: u64,
    extra: &[&str],
    limit: Duration,
) -> TailRun {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
    let home = super::cli::Home::new();
    let from = from.to_string();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["tail", session, "--from", &from]);
    let mut child = home
        .tokio_command(&args)
        .env("GOBARE_API", sim.url().as_str())
        .env("GOBARE_TOKEN", sim.token())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err_task = tokio::spawn(async move {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s).await;
        s
    });
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut lines = Vec::new();
    let reached = tokio::time::timeout(limit, async {
        while let Ok(Some(line)) = out.next_line().await {
            let seq = line_seq(&line);
            lines.push(line);
            if seq == Some(last_seq) {
                return true;
            }
        }
        false
    })
    .await;
    let printed = lines.len();
    if reached != Ok(true) {
        let _ = child.start_kill();
        let err = err_task.await.unwrap();
        panic!("tail stopped after {printed} lines without printing seq {last_seq}: {err}");
    }
    terminate(&child);
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("tail exits after SIGTERM")
        .unwrap();
    TailRun {
        lines,
        stderr: err_task.await.unwrap(),
        code: status.code(),
        logs: read_tree(&home.state_dir()),
    }
}

/// The stderr lines announcing a reconnect, with the wait they announced.
pub(crate) fn announced_reconnects(stderr: &str) -> Vec<(Duration, &str)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split("reconnecting in ").nth(1)?;
            let secs: f64 = rest.split('s').next()?.parse().ok()?;
            Some((Duration::from_secs_f64(secs), l))
        })
        .collect()
}
