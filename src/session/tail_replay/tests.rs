use super::*;
use crate::search::backfill::index_before_window;
use crate::search::{Hit, SearchIndex};
use crate::session::Update;
use crate::session::paging::earlier_entries;
use crate::ui::Screen;
use crate::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

fn examples() -> Value {
    serde_json::from_str(include_str!("../../../assets/event-payloads.json")).unwrap()
}

/// A long history of `turns` turns: messages, tool calls with results and diffs, todos,
/// approvals (one left waiting early on), a question, workspace changes and a queue.
fn history(turns: u64) -> Vec<String> {
    let examples = examples();
    let mut out = Vec::new();
    let mut push = |kind: &str, payload: Value| {
        let mut env = examples[kind].clone();
        env["seq"] = (out.len() as u64 + 1).into();
        env["created_at"] = (1_789_319_090_000 + out.len() as i64 * 40).into();
        env["payload"] = payload;
        out.push(env.to_string());
    };
    for t in 0..turns {
        let turn = json!({"turnId": format!("turn_{t}")});
        push(
            "user.message",
            json!({"text": format!("question {t}\nsecond line")}),
        );
        push("turn.started", turn.clone());
        if t == 3 {
            push(
                "approval.requested",
                json!({"toolCallId": "call_early", "name": "bash", "args": {"command": "rm -rf /"}, "sensitive": true}),
            );
            push("sandbox.paused", json!({"state": "paused"}));
            push("message.queued", json!({"text": "later", "position": 1}));
        }
        for c in 0..4 {
            let call = format!("call_{t}_{c}");
            push(
                "agent.tool_call",
                json!({"toolCallId": call, "toolName": "bash", "args": {"command": format!("grep -rn thing{c} src")}}),
            );
            push(
                "agent.tool_result",
                json!({"toolCallId": call, "toolName": "bash", "isError": c == 3, "cancelled": false, "summary": format!("{} lines of output", t * c)}),
            );
            push(
                "file.changed",
                json!({"path": format!("/workspace/src/f{c}.ts"), "changeType": "modified", "diff": "@@ -1 +1 @@\n-a\n+b\n", "toolCallId": call}),
            );
        }
        push(
            "agent.todos",
            json!({"items": [{"label": "read", "status": "done"}, {"label": format!("step {t}"), "status": "pending"}]}),
        );
        if t % 10 == 5 {
            let call = format!("call_ok_{t}");
            push(
                "approval.requested",
                json!({"toolCallId": call, "name": "bash", "args": {"command": "deploy"}, "sensitive": false}),
            );
            push(
                "approval.resolved",
                json!({"toolCallId": call, "approved": true}),
            );
        }
        push(
            "agent.message",
            json!({"text": format!("Answer {t}: {}", "words ".repeat(20))}),
        );
        push("turn.ended", turn);
    }
    push("sandbox.resumed", json!({"state": "running"}));
    push(
        "preview.ready",
        json!({"port": 3000, "url": "https://p.gobare.dev"}),
    );
    out
}

fn fresh(budget: usize) -> Session {
    Session::new("s").with_transcript_budget(budget)
}

fn in_event_log(records: &[String]) -> Vec<(u64, &[u8])> {
    records
        .iter()
        .enumerate()
        .map(|(i, json)| (i as u64 + 1, json.as_bytes()))
        .collect()
}

fn full(records: &[String], budget: usize) -> Session {
    let mut v = fresh(budget);
    for json in records {
        v.apply(Update::Event(Event::parse(json).unwrap()));
    }
    v
}

/// Replays as a restart does: returns the view and the plan.
fn windowed(records: &[String], budget: usize) -> (Session, TailReplay) {
    let mut v = fresh(budget);
    let in_event_log = in_event_log(records);
    let plan = TailReplay::plan(&in_event_log);
    for (i, &(seq, json)) in in_event_log.iter().enumerate() {
        if i == plan.window_start() && i > 0 {
            v.start_window(plan.window_first_id());
        }
        let decode = || Event::parse(std::str::from_utf8(json).unwrap()).unwrap();
        match plan.step(i) {
            Step::Full => {
                v.apply(Update::Event(decode()));
            }
            Step::Lasting => v.apply_before_window(&decode()),
            Step::PassOver => v.pass_before_window(seq),
        }
    }
    (v, plan)
}

/// The frame a view draws at 120×40.
fn screen(v: &Session) -> ratatui::buffer::Buffer {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let mut screen = Screen::new();
    terminal
        .draw(|f| screen.draw(f, v, &Theme::default(), None))
        .unwrap();
    terminal.backend().buffer().clone()
}

fn kinds(v: &Session) -> Vec<crate::session::transcript::EntryKind> {
    v.transcript()
        .entries()
        .iter()
        .map(|e| e.kind.clone())
        .collect()
}

/// Every pane's state and the screen are the same; the transcript of the restart holds the
/// newest entries of the full replay's (the rest pages back from the log).
fn assert_same(whole: &mut Session, tail: &mut Session) {
    let (whole_kinds, tail_kinds) = (kinds(whole), kinds(tail));
    let n = whole_kinds.len().min(tail_kinds.len());
    assert!(n > 100, "{n} entries in common");
    assert_eq!(
        whole_kinds[whole_kinds.len() - n..],
        tail_kinds[tail_kinds.len() - n..],
        "transcript"
    );
    assert_eq!(
        whole.recent_events().rows(),
        tail.recent_events().rows(),
        "Events pane"
    );
    assert_eq!(whole.turns(), tail.turns(), "Turn pane");
    assert_eq!(whole.actions(), tail.actions(), "waits");
    assert_eq!(whole.workspace(), tail.workspace(), "workspace");
    assert_eq!(whole.last_seq(), tail.last_seq());
    assert_eq!(whole.notice(), tail.notice());
    assert_eq!(
        whole.take_fetches(),
        tail.take_fetches(),
        "what is read after the replay"
    );
    assert_eq!(screen(whole), screen(tail), "the screen");
}

#[test]
fn a_replay_from_the_tail_shows_what_a_full_replay_shows() {
    let records = history(700);
    for budget in [48 * 1024, usize::MAX] {
        let mut whole = full(&records, budget);
        let (mut tail, plan) = windowed(&records, budget);
        assert!(
            plan.window_start() > records.len() / 2,
            "most of the log is not decoded: {} of {}",
            plan.window_start(),
            records.len()
        );
        assert_same(&mut whole, &mut tail);
        assert!(
            tail.actions()
                .pending()
                .iter()
                .any(|a| a.call_id == "call_early"),
            "a wait from before the window is still there"
        );
    }
}

#[test]
fn a_short_history_is_replayed_whole() {
    let records = history(50);
    let (mut tail, plan) = windowed(&records, 48 * 1024);
    assert_eq!(plan.window_start(), 0);
    assert_eq!(
        tail.transcript().dropped(),
        full(&records, 48 * 1024).transcript().dropped()
    );
    assert_same(&mut full(&records, 48 * 1024), &mut tail);
}

fn search(index: &SearchIndex, query: &str) -> Vec<Hit> {
    let mut batches = Vec::new();
    index.snapshot().search(query, |hits| {
        batches.push(hits);
        true
    });
    batches.into_iter().rev().flatten().collect()
}

/// The entries before the window page back in front of it with the ids the search index
/// built off the loop gives them, and once counted, the transcript knows how many there are.
#[test]
fn the_history_before_the_window_pages_back_under_the_ids_search_finds_it_by() {
    let records = history(700);
    let whole = full(&records, usize::MAX);
    let (mut tail, plan) = windowed(&records, usize::MAX);
    let in_event_log = in_event_log(&records);
    assert!(!tail.transcript().dropped_counted());
    assert!(tail.transcript().dropped() > 0, "scrolling up pages back");

    let backfill = index_before_window(
        in_event_log[..plan.window_start()].iter().copied(),
        plan.window_first_id(),
        usize::MAX,
    );
    tail.count_before_window(backfill.entries);
    assert!(tail.transcript().dropped_counted());
    assert_eq!(
        tail.transcript().dropped() as usize + tail.transcript().entries().len(),
        whole.transcript().entries().len(),
        "counted: the entries before the window and those after it are the whole transcript"
    );
    // Oldest first: turn 3's message (before "question 30").
    let hit = search(&backfill.index, "QUESTION 3")[0];
    let entry = hit.entry.expect("shown in an entry");
    assert!(entry < tail.transcript().first_kept_id());

    // Paging back to the first entry.
    let mut pages = 0;
    while tail.transcript().dropped() > 0 {
        let from = tail.transcript().kept_from_seq().unwrap();
        let page = earlier_entries(in_event_log.iter().copied(), from, 256 * 1024);
        assert!(tail.restore_earlier(page, usize::MAX) > 0);
        pages += 1;
    }
    assert!(pages > 1, "{pages} pages");
    assert_eq!(
        kinds(&tail),
        kinds(&whole),
        "the whole transcript, in order"
    );
    let first = tail.transcript().entries()[0].id;
    let ids: Vec<u64> = tail.transcript().entries().iter().map(|e| e.id).collect();
    assert_eq!(ids, (first..first + ids.len() as u64).collect::<Vec<_>>());
    let shown = tail
        .transcript()
        .get(entry)
        .expect("the hit's entry is back");
    assert!(
        matches!(&shown.kind, crate::session::transcript::EntryKind::User { text } if text.starts_with("question 3\n")),
        "{:?}",
        shown.kind
    );
}
