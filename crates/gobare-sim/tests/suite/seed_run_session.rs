//! Seed 003's resuming client, as an outside integrator writes it from the reference alone
//! (`scripts/clients/run_session.py`, Python standard library only), plays every scenario
//! the simulator has under every stream fault: it answers what each turn waits for,
//! reopens the stream from `Last-Event-ID` whenever it ends, stalls or is refused, and
//! finds no event id twice (repeats) and none missing from the session's history re-read
//! from 0 (holes), each turn ending as its scenario says.
//!
//! One simulator per fault, all at once; faults that need a moment chosen (a stall in the
//! middle of a turn, a refusal of a given open) are switched by what the script reports
//! on stderr, never by a timer.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gobare_sim::{Faults, SimConfig};

use crate::support::Api;

struct Case {
    name: &'static str,
    /// The faults in force from the start to the end.
    always: Faults,
    /// Faults put on when the script says a turn started, and taken off (back to
    /// `always`) when it says it reopened a stream for them: once a run, at a point of
    /// the turn the script did not choose.
    once_per_turn: Option<Faults>,
    /// What the script's `reopened A ended B idle C refused` line must show for the
    /// faults to have been met, given the number of runs. A fault put on as a turn starts
    /// may meet the script's next open only after its last run: every run but one is
    /// certain to meet it.
    met: fn(&Reopened, usize) -> bool,
}

#[derive(Debug)]
struct Reopened {
    ended: usize,
    idle: usize,
    refused: usize,
}

fn cases() -> Vec<Case> {
    let none = Faults::default();
    let drop_every = |n| Faults {
        drop_every_n_frames: Some(n),
        ..Faults::default()
    };
    // The stream dropped every 7th frame and, once a turn, the next open refused: a
    // resumption from the middle of the turn is what gets refused.
    let refusal = |status| Faults {
        refuse_share: 1.0,
        refuse_status: status,
        refuse_retry_after_secs: 1,
        ..drop_every(7)
    };
    vec![
        Case {
            name: "no fault",
            always: none.clone(),
            once_per_turn: None,
            met: |_, _| true,
        },
        Case {
            name: "drop every 5th frame",
            always: drop_every(5),
            once_per_turn: None,
            met: |r, runs| r.ended >= runs,
        },
        Case {
            name: "drop with probability 0.05",
            always: Faults {
                drop_probability: 0.05,
                ..Faults::default()
            },
            once_per_turn: None,
            met: |r, _| r.ended > 0,
        },
        Case {
            name: "drop every 7th frame, refuse an open a turn with 429",
            always: drop_every(7),
            once_per_turn: Some(refusal(429)),
            met: |r, runs| r.ended >= runs && r.refused + 1 >= runs,
        },
        Case {
            name: "drop every 7th frame, refuse an open a turn with 503",
            always: drop_every(7),
            once_per_turn: Some(refusal(503)),
            met: |r, runs| r.ended >= runs && r.refused + 1 >= runs,
        },
        Case {
            name: "chunks of 1..=7 bytes",
            always: Faults {
                chunk_writes: Some((1, 7)),
                ..Faults::default()
            },
            once_per_turn: None,
            met: |_, _| true,
        },
        Case {
            name: "CRLF",
            always: Faults {
                crlf: true,
                ..Faults::default()
            },
            once_per_turn: None,
            met: |_, _| true,
        },
        Case {
            // A CR and its LF in two chunks: a parser that splits on either alone sees an
            // empty line in the middle of a frame.
            name: "CRLF in chunks of 1..=2 bytes",
            always: Faults {
                crlf: true,
                chunk_writes: Some((1, 2)),
                ..Faults::default()
            },
            once_per_turn: None,
            met: |_, _| true,
        },
        Case {
            name: "a stall once a turn, then recovery",
            always: none.clone(),
            once_per_turn: Some(Faults {
                stall: true,
                ..Faults::default()
            }),
            met: |r, runs| r.idle + 1 >= runs,
        },
    ]
}

/// What the script printed, and how it ended.
struct Script {
    success: bool,
    stdout: String,
    stderr: String,
    seconds: f64,
}

/// Runs the script against `api`, every one of `tags`, handing each line it writes on
/// stderr (its progress) to `progress` as it comes.
async fn run_session(
    api: &Api,
    tags: &str,
    idle_s: &str,
    mut progress: impl FnMut(&str),
) -> Script {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/clients/run_session.py");
    let mut command = Command::new("python3");
    command
        .arg(&script)
        .env("GOBARE_API", &api.base)
        .env("GOBARE_TOKEN", &api.token)
        .env("RUN_SESSION_TAGS", tags)
        .env("RUN_SESSION_IDLE_S", idle_s)
        .env("RUN_SESSION_TIMEOUT_S", "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (lines, mut progress_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let started = Instant::now();
    let finished = tokio::task::spawn_blocking(move || {
        let mut child = command
            .spawn()
            .expect("python3 runs (the CI machine has CPython 3.11)");
        let mut out = child.stdout.take().expect("stdout is piped");
        let stdout = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = out.read_to_string(&mut text);
            text
        });
        let mut stderr = String::new();
        for line in BufReader::new(child.stderr.take().expect("stderr is piped")).lines() {
            let line = line.unwrap_or_default();
            stderr.push_str(&line);
            stderr.push('\n');
            let _ = lines.send(line);
        }
        let status = child.wait().expect("the script ends");
        (status.success(), stdout.join().unwrap_or_default(), stderr)
    });
    while let Some(line) = progress_rx.recv().await {
        progress(&line);
    }
    let (success, stdout, stderr) = finished.await.expect("the script's reader ends");
    Script {
        success,
        stdout,
        stderr,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The script's `reopened A ended B idle C refused; …` line.
fn reopened(stdout: &str) -> Option<Reopened> {
    let line = stdout.lines().find(|l| l.starts_with("reopened "))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let count = |i: usize| words.get(i)?.trim_end_matches(';').parse().ok();
    Some(Reopened {
        ended: count(1)?,
        idle: count(3)?,
        refused: count(5)?,
    })
}

async fn play(case: Case) -> (String, Script) {
    let api = Api::start(SimConfig {
        // Fast enough that the longest scenario takes about a second; streams say to come
        // back at once, and pings keep a healthy stream from ever looking stalled.
        speed: 200.0,
        retry_ms: 10,
        ping_interval: Duration::from_millis(100),
        faults: case.always.clone(),
        ..SimConfig::for_tests()
    })
    .await;
    let scenarios = api.sim.scenarios();
    assert!(scenarios.iter().any(|s| s == "approval"), "{scenarios:?}");
    // A stream is declared dead after this much silence: the stall's only sign. Elsewhere
    // it is a last resort.
    let stalls = case.once_per_turn.as_ref().is_some_and(|f| f.stall);
    let idle_s = if stalls { "1" } else { "5" };
    let script = run_session(&api, &scenarios.join(" "), idle_s, |line| {
        let Some(once) = &case.once_per_turn else {
            return;
        };
        if line.ends_with(" started") {
            api.sim.set_faults(once.clone());
        } else if line.contains("(idle)") || line.contains("stream refused") {
            api.sim.set_faults(case.always.clone());
        }
    })
    .await;
    let runs = scenarios.len();
    let summary = format!("runs {runs} holes 0 repeats 0");
    let name = case.name;
    assert!(
        script.success && script.stdout.lines().any(|l| l == summary),
        "{name}: expected `{summary}`\nstdout:\n{}\nstderr:\n{}",
        script.stdout,
        script.stderr
    );
    let seen = reopened(&script.stdout).unwrap_or_else(|| panic!("{name}: {}", script.stdout));
    assert!(
        (case.met)(&seen, runs),
        "{name}: the fault was not met ({seen:?})\nstdout:\n{}\nstderr:\n{}",
        script.stdout,
        script.stderr
    );
    (name.to_string(), script)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_003_run_session_has_no_holes_or_repeats_under_every_stream_fault() {
    let played = futures_util::future::join_all(cases().into_iter().map(play)).await;
    for (name, script) in played {
        let summary: Vec<&str> = script.stdout.lines().rev().take(2).collect();
        eprintln!(
            "{name}: {} / {}, {:.1} s",
            summary[1], summary[0], script.seconds
        );
    }
}
