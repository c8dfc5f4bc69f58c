//! `gobare-tui export` against the simulator: the whole history in both formats, every
//! message and tool call found, no credential left, a truncated replay collected, the file
//! written only when complete, and a failure that leaves no file.

use crate::support::cli::{Home, read_logs};
use crate::support::faults::options;
use crate::support::live::wait_live;
use gobare_api::model::{Event, EventPayload, Text, ToolCall, ToolResult};
use gobare_api::stream::{StreamUpdate, spawn};
use gobare_sim::{SimConfig, Simulator};
use serde_json::json;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const GITHUB_TOKEN: &str = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
const PAT: &str = "gbr_pat_LEAKEDxyz0123456789";
const BEARER: &str = "eyJhbGciOiJIUzI1NiJ9.e30.sig";

/// A session with a realistic mix, then a `git remote -v` whose output carries the GitHub
/// installation token, and more secrets in messages and arguments.
fn seed(sim: &Simulator, id: &str, events: usize) {
    sim.seed_events(id, events);
    sim.emit(
        id,
        EventPayload::AgentToolCall(ToolCall {
            tool_call_id: "call_remote".into(),
            tool_name: "bash".into(),
            args: json!({"command": "git remote -v",
                         "env": {"AUTH": format!("Authorization: Bearer {BEARER}")}}),
        }),
    );
    sim.emit(
        id,
        EventPayload::AgentToolResult(ToolResult {
            tool_call_id: "call_remote".into(),
            tool_name: "bash".into(),
            summary: format!(
                "origin\thttps://x-access-token:{GITHUB_TOKEN}@github.com/acme/app.git (fetch)\n\
                 origin\thttps://x-access-token:{GITHUB_TOKEN}@github.com/acme/app.git (push)"
            ),
            exit_code: Some(0),
            ..ToolResult::default()
        }),
    );
    sim.emit(
        id,
        EventPayload::UserMessage(Text {
            text: format!("my token is {PAT}, and \u{1b}]0;pwned\u{7} a title"),
        }),
    );
}

/// Every persisted event of `id`, read with the library's stream up to the last seq.
async fn history(sim: &Simulator, id: &str) -> Vec<Event> {
    let last = sim.last_seq();
    let mut handle = spawn(options(sim, id, Some(0)));
    let mut events = Vec::new();
    tokio::time::timeout(TIMEOUT, async {
        while let Some(update) = handle.updates.recv().await {
            if let StreamUpdate::Frame(f) = update
                && let Some(seq) = f.id
            {
                events.push(f.event.unwrap());
                if seq == last {
                    return;
                }
            }
        }
    })
    .await
    .expect("the whole history");
    events
}

async fn export(sim: &Simulator, home: &Home, args: &[&str]) -> std::process::Output {
    let api = sim.url().to_string();
    let mut all = vec!["--api", api.as_str(), "export"];
    all.extend_from_slice(args);
    tokio::time::timeout(
        TIMEOUT,
        home.tokio_command(&all)
            .env("GOBARE_TOKEN", sim.token())
            .output(),
    )
    .await
    .expect("export ends at the end of the history")
    .unwrap()
}

/// The session was idle: its history ended at its last change, not on a quiet spell.
fn assert_settled_end(home: &Home) {
    let logs = read_logs(&home.log_dir());
    assert!(logs.contains("end=Settled"), "{logs}");
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in [GITHUB_TOKEN, PAT, BEARER, "\u{1b}", "\u{7}"] {
        assert!(!text.contains(secret), "{what} holds {secret:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_holds_every_message_and_tool_call_and_no_credential() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("export me"));
    seed(&sim, &id, 400);
    let events = history(&sim, &id).await;
    let home = Home::new();
    let file = home.path("session.md");
    let out = export(
        &sim,
        &home,
        &[&id, "--format", "md", "--output", file.to_str().unwrap()],
    )
    .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(out.stdout.is_empty(), "the document went to the file");
    assert!(
        err.contains(&format!("exported {} events", events.len())),
        "{err}"
    );
    let md = std::fs::read_to_string(&file).unwrap();
    assert_no_secret("the Markdown", &md);

    let mut counts = [0usize; 4];
    for event in &events {
        match &event.payload {
            EventPayload::UserMessage(t) => {
                counts[0] += 1;
                if !t.text.contains(PAT) {
                    assert!(md.contains(&t.text), "user message {:?}", t.text);
                }
            }
            EventPayload::AgentMessage(t) => {
                counts[1] += 1;
                assert!(md.contains(&t.text), "agent message {:?}", t.text);
            }
            EventPayload::AgentToolCall(c) => {
                counts[2] += 1;
                for line in serde_json::to_string_pretty(&c.args).unwrap().lines() {
                    if !line.contains(BEARER) {
                        assert!(md.contains(line), "tool call argument {line:?}");
                    }
                }
            }
            EventPayload::AgentToolResult(r) => {
                counts[3] += 1;
                if !r.summary.contains(GITHUB_TOKEN) {
                    assert!(md.contains(&r.summary), "tool result {:?}", r.summary);
                }
            }
            _ => {}
        }
    }
    assert_eq!(md.matches("\n### You · ").count(), counts[0]);
    assert_eq!(md.matches("\n### Agent · ").count(), counts[1]);
    assert_eq!(md.matches("\n### Tool call `").count(), counts[2]);
    assert_eq!(md.matches("\n### Tool result `").count(), counts[3]);
    assert!(counts.iter().all(|&n| n > 10), "{counts:?}");
    assert!(md.starts_with("# export me\n"), "{}", &md[..100]);
    assert_eq!(md.matches("\n## Turn ").count(), 400usize.div_ceil(8));
    assert!(md.contains("https://x-access-token:[redacted]@github.com/acme/app.git (push)"));
    assert!(md.contains("my token is gbr_pat_[redacted], and ␛]0;pwned␇ a title"));
    assert!(md.contains("Authorization: Bearer [redacted]"));
    assert!(md.contains(&format!(
        "*{} events exported, through seq {}.*",
        events.len(),
        sim.last_seq()
    )));
    assert_settled_end(&home);
    sim.shutdown().await;
}

/// JSON lines: one envelope per persisted event, in order, collected across replay
/// truncations (a replay cap far below the history).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonl_is_every_persisted_envelope_in_order_across_truncated_replays() {
    let sim = Simulator::start(SimConfig {
        replay_cap: 150,
        ..SimConfig::for_tests()
    })
    .await
    .unwrap();
    let id = sim.create_session(Some("jsonl"));
    seed(&sim, &id, 397);
    let home = Home::new();
    let out = export(&sim, &home, &[&id, "--format", "jsonl"]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_no_secret("the JSON lines", &text);
    let seqs: Vec<u64> = text
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect(line);
            assert_eq!(value["session_id"], id.as_str());
            value["seq"].as_u64().expect("persisted only")
        })
        .collect();
    assert_eq!(seqs.len(), 400, "every event once");
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order");
    assert_eq!(seqs.last(), Some(&sim.last_seq()));
    assert!(text.contains("x-access-token:[redacted]@github.com"));
    assert!(text.contains("gbr_pat_[redacted]"));
    assert!(sim.stream_opens().len() >= 3, "{:?}", sim.stream_opens());
    assert_settled_end(&home);
    sim.shutdown().await;
}

/// Files in `home` an export could have left: the output or a temporary file of it.
fn left_behind(home: &Home, name: &str) -> Vec<std::ffi::OsString> {
    std::fs::read_dir(&home.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains("export") || n == name)
        .collect()
}

/// A session that cannot be found (a whole id the server does not know, a prefix that
/// matches none, text that is no id) fails with a clear message, and nothing
/// was written: no file, no partial one, nothing on stdout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_not_found_fails_and_writes_nothing() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let home = Home::new();
    let file = home.path("nothing.md");
    let output = file.to_str().unwrap();
    sim.create_session(Some("another"));
    let unknown = "00000000-0000-4000-8000-000000000000";
    let cases = [
        (unknown, "No session 00000000-0000-4000-8000-000000000000"),
        ("ffffffff-ff", "no session id starts with \"ffffffff-ff\""),
        ("no-such-session", "is not a session id"),
    ];
    for (typed, said) in cases {
        for to_file in [true, false] {
            let mut args = vec![typed];
            if to_file {
                args.extend(["--output", output]);
            }
            let out = export(&sim, &home, &args).await;
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{typed}: {err}");
            assert!(err.contains(said), "{typed}: {err}");
            assert!(out.stdout.is_empty(), "{typed}: nothing on stdout");
            assert!(left_behind(&home, "nothing.md").is_empty(), "{typed}");
        }
    }
    assert!(
        export(&sim, &home, &[unknown])
            .await
            .stderr
            .windows(3)
            .any(|w| w == b"404"),
        "the server's answer is named"
    );
    sim.shutdown().await;
}

/// An `export` of `id` to `name` in `home`, the turn list's pages after the first of each
/// end held by the simulator until its faults are cleared.
fn export_with_turn_pages_held(
    sim: &Simulator,
    home: &Home,
    id: &str,
    name: &str,
) -> tokio::process::Command {
    sim.set_faults(gobare_sim::Faults {
        hold_later_turn_pages: true,
        ..gobare_sim::Faults::default()
    });
    let api = sim.url().to_string();
    let file = home.path(name);
    let args = [
        "--api",
        &api,
        "export",
        id,
        "--output",
        file.to_str().unwrap(),
    ];
    let mut command = home.tokio_command(&args);
    command.env("GOBARE_TOKEN", sim.token());
    command
}

/// Waits until a turn page after the first of its end was asked for (and is held), and
/// `under_way` holds.
async fn a_later_turn_page_asked(sim: &Simulator, under_way: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let held = sim
            .requests()
            .iter()
            .any(|r| r.contains("/turns?") && r.contains("after="));
        if held && under_way() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no later turn page asked for"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Ctrl+C while the Markdown export's writer waits for a turn's outcome (the turn list's
/// later pages held by the server) ends it at once, and leaves neither the file nor its
/// temporary part behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_markdown_export_leaves_nothing_behind() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("interrupted"));
    // 8 events a turn: 300 turns, three pages of the turn list.
    sim.seed_events(&id, 2_400);
    let home = Home::new();
    let mut child = export_with_turn_pages_held(&sim, &home, &id, "interrupted.md")
        .spawn()
        .unwrap();
    // Under way: the output's temporary part exists too.
    a_later_turn_page_asked(&sim, || !left_behind(&home, "interrupted.md").is_empty()).await;
    let status = crate::support::process::interrupt(&mut child, TIMEOUT).await;
    assert_eq!(status.code(), Some(1));
    assert!(
        left_behind(&home, "interrupted.md").is_empty(),
        "{:?}",
        left_behind(&home, "interrupted.md")
    );
    sim.shutdown().await;
}

/// The Markdown writer held up (a turn's outcome on a turn page the server holds for
/// longer than the history's quiet spell) while large events fill the stream's queue: the
/// stream waiting for the writer is not a quiet stream, and every event is exported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_held_up_past_the_quiet_spell_loses_no_event() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("held up"));
    // 300 turns (three turn pages), then 200 messages of 105 kB: 21 MB, more than the
    // writer's queue and the stream's together (16 + 1 MiB), so the stream is held up too.
    sim.seed_events(&id, 2_400);
    let long = "a long message ".repeat(7_000);
    for _ in 0..200 {
        sim.emit(&id, EventPayload::AgentMessage(Text { text: long.clone() }));
    }
    let events = history(&sim, &id).await.len();
    let home = Home::new();
    let child = export_with_turn_pages_held(&sim, &home, &id, "held.md").output();
    let child = tokio::spawn(child);
    a_later_turn_page_asked(&sim, || true).await;
    // The writer now waits for turn 101: held three times the export's quiet spell (the
    // spell is the client's own timer; nothing else can stand for it).
    tokio::time::sleep(3 * gobare_tui::export::history::END_QUIET).await;
    sim.set_faults(gobare_sim::Faults::default());
    let out = tokio::time::timeout(TIMEOUT, child)
        .await
        .expect("the export ends")
        .unwrap()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("exported {events} events")),
        "{events} events: {err}"
    );
    let md = std::fs::read_to_string(home.path("held.md")).unwrap();
    assert!(md.contains("## Turn 300 "), "every turn written");
    assert_eq!(md.matches(long.trim_end()).count(), 200);
    sim.shutdown().await;
}

/// `export` takes any unique prefix of a session id, as `attach` and `tail` do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_prefix_names_the_session_exported() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("by prefix"));
    seed(&sim, &id, 16);
    let home = Home::new();
    let file = home.path("prefix.md");
    let out = export(&sim, &home, &[&id[..8], "--output", file.to_str().unwrap()]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let md = std::fs::read_to_string(&file).unwrap();
    assert!(
        md.starts_with(&format!("# by prefix\n\nSession `{id}`\n")),
        "{md}"
    );
    assert_eq!(md.matches("\n## Turn ").count(), 2, "{md}");
    sim.shutdown().await;
}

/// `x` in the panes writes the Markdown export to a new file in the current directory,
/// without holding up the screen, and says where: every message is in it and no
/// credential (neither the API token nor a secret in the history).
#[test]
fn x_in_the_panes_writes_the_markdown_export_and_says_where() {
    use crate::support::app::{bottom, launch_on, quit};
    use gobare_test_support::pty::keys;
    let sim = crate::support::sim::start(SimConfig::for_tests());
    let id = sim.sim.create_session(Some("export key"));
    seed(&sim.sim, &id, 60);
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch_on(&sim.sim, &["attach", &id], &home)
        .cwd(home.path())
        .spawn();
    wait_live(&pty, TIMEOUT);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("x");
    pty.wait_for_text("exported ", TIMEOUT);
    let files: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name
        .strip_prefix(&format!("gobare-{}-", &id[..8]))
        .and_then(|rest| rest.strip_suffix("Z.md"))
        .unwrap_or_else(|| panic!("the short id and a UTC time: {name}"));
    let (day, clock) = stamp.split_once('T').expect(&name);
    assert!(
        day.len() == 10 && clock.len() == 8,
        "2026-12-02T15-41-16Z: {name}"
    );
    assert!(!clock.contains(':'), "{name}");
    let md = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        md.starts_with("# export key\n"),
        "{}",
        &md[..100.min(md.len())]
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let texts: Vec<String> = runtime
        .block_on(history(&sim.sim, &id))
        .into_iter()
        .filter_map(|e| match e.payload {
            EventPayload::UserMessage(t) | EventPayload::AgentMessage(t) => Some(t.text),
            _ => None,
        })
        .collect();
    assert!(texts.len() > 5, "{texts:?}");
    for text in texts.iter().filter(|t| !t.contains(PAT)) {
        assert!(md.contains(text.as_str()), "message {text:?}");
    }
    assert_no_secret("the Markdown", &md);
    assert!(!md.contains(&sim.sim.token()), "the API token");
    assert!(
        pty.screen_text().contains(&name),
        "the notice names the file: {}",
        pty.screen_text()
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}
