//! Model tests: replaying the documented examples, dedupe, deltas, items backfill.

use super::transcript::{ApprovalOutcome, CallStatus, EntryKind, TurnEndEntry, TurnOutcome};
use super::turn::TurnPhase;
use super::*;
use gobare_api::model::{
    ChangeKind, EVENT_TYPES, Item, Session as ApiSession, Turn, TurnStatus, WorkspaceState,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The session every example event belongs to.
const EXAMPLE_SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

fn examples() -> Value {
    serde_json::from_str(include_str!("../../assets/event-payloads.json")).unwrap()
}

fn example(kind: &str) -> Event {
    Event::parse(&examples()[kind].to_string()).unwrap()
}

/// Every example event, in the order of §8's table (seqs increase).
fn all_events() -> Vec<Event> {
    EVENT_TYPES.iter().map(|k| example(k)).collect()
}

fn view_of(events: &[Event]) -> Session {
    let mut v = Session::new(EXAMPLE_SESSION);
    for e in events {
        v.apply(Update::Event(e.clone()));
    }
    v
}

fn kinds(v: &Session) -> Vec<EntryKind> {
    v.transcript()
        .entries()
        .iter()
        .map(|e| e.kind.clone())
        .collect()
}

fn ev(kind: &str, seq: Option<u64>, payload: Value) -> Event {
    let env = json!({"type": kind, "seq": seq, "created_at": 1000, "payload": payload});
    Event::parse(&env.to_string()).unwrap()
}

#[test]
fn replaying_every_example_gives_the_expected_entries() {
    let v = view_of(&all_events());
    let entries = kinds(&v);

    let tools: Vec<_> = entries
        .iter()
        .filter_map(|k| match k {
            EntryKind::Tool(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(tools.len(), 1, "call and result pair into one entry");
    assert_eq!(tools[0].call_id, "call_53ce8a1f");
    assert_eq!(tools[0].name, "write");
    assert_eq!(tools[0].args, "/workspace/outputs/report.md");
    assert_eq!(tools[0].status, CallStatus::Ok);
    assert_eq!(tools[0].summary, "Successfully wrote 5 bytes");

    assert!(entries.iter().any(|k| matches!(k, EntryKind::FileChange(f)
        if f.path == "/workspace/src/export.ts" && f.change == ChangeKind::Modified
            && f.diff.as_deref() == Some("@@ -1,3 +1,4 @@\n…"))));
    assert!(
        entries
            .iter()
            .any(|k| matches!(k, EntryKind::Todos { items }
        if items.len() == 2 && items[0].label == "Read the alert" && items[0].status == "done"))
    );
    assert!(
        entries.iter().any(|k| matches!(k, EntryKind::Approval(a)
        if a.call_id == "call_9a1f20bd" && a.sensitive && a.args == "systemctl restart export"
            && a.verdict == ApprovalOutcome::Denied { code: Some("denied_by_rule".into()), reason: None }))
    );
    assert!(entries.iter().any(|k| matches!(k, EntryKind::Question(q)
        if q.question == "Roll back or patch forward?" && q.options.len() == 2
            && q.answer.as_deref() == Some("roll back"))));
    assert!(entries.iter().any(|k| matches!(k, EntryKind::Function(f)
        if f.name == "lookup_order" && f.success == Some(true) && f.args.contains("A-4471"))));
    assert!(entries.contains(&EntryKind::Agent {
        text: "I found the regression in export-svc v2.3.2.".into()
    }));
    assert!(entries.contains(&EntryKind::User {
        text: "Alert A-4471: export error rate 12%.".into()
    }));
    assert!(entries.contains(&EntryKind::Error {
        message: "the model provider returned 502".into()
    }));
    assert!(entries.contains(&EntryKind::Compaction {
        before: Some(182000),
        after: Some(41000)
    }));
    // The example's `message.dequeued` started it: it no longer holds a place in line.
    assert!(entries.contains(&EntryKind::Queued {
        text: "Also check the retry queue.".into(),
        position: None
    }));
    assert!(entries.iter().any(|k| matches!(k, EntryKind::Artifact { id, size_bytes: Some(482), .. } if &**id == "art_6f2a9c41")));
    assert!(
        entries
            .iter()
            .any(|k| matches!(k, EntryKind::McpUnavailable { name, .. } if name == "runbook"))
    );
    assert!(
        entries
            .iter()
            .any(|k| matches!(k, EntryKind::RecoveryFailed { .. }))
    );
    assert!(entries.contains(&EntryKind::ReplayTruncated {
        from_seq: Some(91204)
    }));

    // The deltas were replaced by the settled message that followed them.
    assert!(v.transcript().streaming().is_none());
    assert_eq!(v.last_seq(), Some(4826));
    assert_eq!(v.truncated_from(), Some(91204));
    assert_eq!(v.recent_events().rows().len(), 29);
    // All required actions were resolved by their events.
    assert!(v.actions().is_empty());
    assert_eq!(v.turns().queue_len(), 0);
    assert_eq!(v.workspace().state(), Some(&WorkspaceState::RecoveryFailed));
    assert_eq!(
        v.workspace().preview().url.as_deref(),
        Some("https://p-4f1c8e02a7b1.gobare.dev")
    );
}

#[test]
fn replaying_the_same_persisted_events_twice_changes_nothing() {
    let events: Vec<Event> = all_events()
        .into_iter()
        .filter(|e| e.seq.is_some())
        .collect();
    let mut v = view_of(&events);
    let before = (kinds(&v), v.recent_events().total(), v.last_seq());
    for e in &events {
        assert!(
            !v.apply(Update::Event(e.clone())),
            "{} replayed changed the view",
            e.kind
        );
    }
    assert_eq!((kinds(&v), v.recent_events().total(), v.last_seq()), before);
}

#[test]
fn deltas_then_the_settled_message_leave_one_message() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(ev(
        "turn.started",
        Some(1),
        json!({"turnId": "t1"}),
    )));
    for d in ["Look", "ing at ", "it"] {
        assert!(v.apply(Update::Event(ev("agent.text", None, json!({"delta": d})))));
    }
    v.apply(Update::Event(ev(
        "agent.thinking",
        None,
        json!({"delta": "hmm"}),
    )));
    let s = v.transcript().streaming().unwrap();
    assert_eq!(
        (s.text.as_str(), s.thinking.as_str()),
        ("Looking at it", "hmm")
    );
    v.apply(Update::Event(ev(
        "agent.message",
        Some(2),
        json!({"text": "Looked at it."}),
    )));
    assert!(v.transcript().streaming().is_none());
    assert_eq!(
        kinds(&v),
        vec![EntryKind::Agent {
            text: "Looked at it.".into()
        }]
    );
}

#[test]
fn deltas_without_a_settled_message_are_dropped_when_the_turn_ends() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(ev(
        "agent.text",
        None,
        json!({"delta": "partial"}),
    )));
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(3),
        json!({"turnId": "t1"}),
    )));
    assert!(v.transcript().streaming().is_none());
    assert_eq!(kinds(&v), vec![turn_end("t1", None)]);
}

fn turn(id: &str, status: &str, started: Option<i64>, error: Value) -> Turn {
    serde_json::from_value(json!({
        "id": id, "session_id": "s", "status": status, "created_at": 100,
        "started_at": started, "completed_at": null, "error": error
    }))
    .unwrap()
}

#[test]
fn turn_outcome_comes_from_the_turn_resource() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(ev(
        "turn.started",
        Some(1),
        json!({"turnId": "t1"}),
    )));
    assert_eq!(v.turn_phase(), Some(TurnPhase::Working));
    assert_eq!(v.take_fetches(), vec![Fetch::Session]);
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    assert_eq!(
        v.turn_phase(),
        Some(TurnPhase::Settling),
        "turn.ended alone is neutral"
    );
    assert_eq!(
        v.take_fetches(),
        vec![Fetch::Turn("t1".into()), Fetch::Session, Fetch::Usage]
    );
    let failed = turn(
        "t1",
        "failed",
        Some(50),
        json!({"code": "provider_error", "message": "502"}),
    );
    assert!(v.apply(Update::Turn(failed.clone())));
    assert_eq!(v.turn_phase(), Some(TurnPhase::Failed));
    assert_eq!(
        v.turns().current().unwrap().error.as_deref(),
        Some("provider_error: 502")
    );
    assert!(
        !v.apply(Update::Turn(failed)),
        "the same resource again changes nothing"
    );
}

#[test]
fn queued_and_waiting_on_you_are_told_apart() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Turn(turn("t2", "working", None, Value::Null)));
    assert_eq!(v.turn_phase(), Some(TurnPhase::Queued));
    v.apply(Update::Turn(turn("t2", "working", Some(120), Value::Null)));
    assert_eq!(v.turn_phase(), Some(TurnPhase::Working));
    let mut session: ApiSession = serde_json::from_value(examples()["session"].clone()).unwrap();
    session.required_actions =
        vec![serde_json::from_value(examples()["required_action"].clone()).unwrap()].into();
    v.apply(Update::Session(Box::new(session)));
    assert_eq!(v.turn_phase(), Some(TurnPhase::WaitingOnYou));
    assert_eq!(
        v.actions().pending()[0].turn_id.as_deref(),
        Some("turn_9d41c7e0a8b24f36")
    );
}

#[test]
fn replaying_history_after_fetching_turns_ends_on_the_latest_turn() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Turns(vec![turn(
        "t2",
        "working",
        Some(120),
        Value::Null,
    )]));
    v.apply(Update::Event(ev(
        "turn.started",
        Some(1),
        json!({"turnId": "t1"}),
    )));
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    v.apply(Update::Event(ev(
        "turn.started",
        Some(3),
        json!({"turnId": "t2"}),
    )));
    let t = v.turns();
    assert_eq!(t.current().unwrap().id, "t2");
    assert_eq!(
        t.recent().iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        vec!["t1"]
    );
    assert_eq!(v.turn_phase(), Some(TurnPhase::Working));
}

#[test]
fn only_the_newest_ended_turn_is_fetched() {
    let mut v = Session::new(EXAMPLE_SESSION);
    for (i, id) in ["a", "b", "c"].iter().enumerate() {
        v.apply(Update::Event(ev(
            "turn.ended",
            Some(i as u64 + 1),
            json!({"turnId": id}),
        )));
    }
    assert_eq!(
        v.take_fetches(),
        vec![Fetch::Session, Fetch::Usage, Fetch::Turn("c".into())]
    );
    assert!(v.take_fetches().is_empty());
}

#[test]
fn the_clock_ticks_only_while_a_turn_runs() {
    let mut v = Session::new(EXAMPLE_SESSION);
    assert!(!v.apply(Update::Tick(5_000)), "no turn: nothing to redraw");
    v.apply(Update::Event(ev(
        "turn.started",
        Some(1),
        json!({"turnId": "t1"}),
    ))); // at 1000
    assert!(v.apply(Update::Tick(3_000)));
    assert!(!v.apply(Update::Tick(3_400)), "same second");
    assert_eq!(
        v.turns().current().unwrap().elapsed_ms(v.now_ms()),
        Some(2_400)
    );
    v.apply(Update::Turn(turn(
        "t1",
        "completed",
        Some(1000),
        Value::Null,
    )));
    assert!(!v.apply(Update::Tick(9_000)));
}

#[test]
fn endless_streaming_keeps_the_newest_text_within_bounds() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let chunk = "x".repeat(10_000);
    for _ in 0..40 {
        v.apply(Update::Event(ev(
            "agent.text",
            None,
            json!({"delta": chunk}),
        )));
    }
    v.apply(Update::Event(ev(
        "agent.text",
        None,
        json!({"delta": "THE END"}),
    )));
    let text = &v.transcript().streaming().unwrap().text;
    assert!(text.len() <= 256 * 1024 && text.ends_with("THE END"));
}

#[test]
fn unknown_event_types_show_generically() {
    let v = view_of(&[ev("agent.dance", Some(7), json!({"steps": [1, 2]}))]);
    assert_eq!(
        kinds(&v),
        vec![EntryKind::Unknown {
            kind: "agent.dance".into(),
            excerpt: r#"{"steps":[1,2]}"#.into()
        }]
    );
    assert_eq!(v.recent_events().rows()[0].kind.as_str(), "agent.dance");
}

fn items() -> Vec<Item> {
    let all = examples();
    let order = [
        "message",
        "tool_call",
        "command_execution",
        "file_change",
        "approval",
        "question",
        "mcp_unavailable",
        "error",
        "context",
        "tool_call (result)",
    ];
    order
        .iter()
        .map(|k| serde_json::from_value(all["items"][k].clone()).unwrap())
        .collect()
}

#[test]
fn items_backfill_pairs_both_tool_call_halves_into_one_entry() {
    let mut v = Session::new(EXAMPLE_SESSION);
    assert!(v.apply(Update::Items(items())));
    let entries = kinds(&v);
    let tools: Vec<_> = entries
        .iter()
        .filter_map(|k| match k {
            EntryKind::Tool(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(
        tools.len(),
        2,
        "write (two items) + bash (command_execution)"
    );
    let write = v.transcript().tool_call("call_53ce8a1f").unwrap();
    assert_eq!(
        (write.status, write.summary.as_str()),
        (CallStatus::Ok, "Successfully wrote 5 bytes")
    );
    let bash = v.transcript().tool_call("call_1c72fe08").unwrap();
    assert_eq!((bash.name.as_str(), bash.exit_code), ("bash", Some(0)));
    assert!(entries.iter().any(|k| matches!(k, EntryKind::FileChange(f)
        if f.path == "/workspace/src/export.ts" && f.change == ChangeKind::Modified)));
    assert!(entries.iter().any(
        |k| matches!(k, EntryKind::Approval(a) if a.verdict == ApprovalOutcome::Pending && a.from_history)
    ));
    assert!(entries.contains(&EntryKind::Context {
        text: "@reviewer said: the rollback is already merged.".into()
    }));
    assert_eq!(entries.len(), 9);
}

#[test]
fn items_and_replayed_events_do_not_duplicate() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Items(items()));
    let n = v.transcript().entries().len();
    for k in [
        "agent.message",
        "agent.tool_call",
        "agent.tool_result",
        "agent.error",
        "user.context",
        "approval.requested",
        "approval.resolved",
        "question.asked",
        "mcp.unavailable",
    ] {
        // In seq order, so none is dropped as a replay.
        assert!(v.apply(Update::Event(example(k))), "{k}");
    }
    assert_eq!(v.transcript().entries().len(), n, "{:#?}", kinds(&v));
    assert!(
        kinds(&v).iter().any(|k| matches!(k, EntryKind::Approval(a)
        if matches!(a.verdict, ApprovalOutcome::Denied { .. }))),
        "the event resolves the item's approval"
    );
    // A second identical message is new: each item cancels one event only.
    v.apply(Update::Event(ev(
        "agent.message",
        Some(99_999),
        json!({"text": "I found the regression in export-svc v2.3.2."}),
    )));
    assert_eq!(v.transcript().entries().len(), n + 1);
}

#[test]
fn session_fetch_sets_title_workspace_and_actions() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let mut s: ApiSession = serde_json::from_value(examples()["session"].clone()).unwrap();
    s.title = Some("Export alert".into());
    assert!(v.apply(Update::Session(Box::new(s.clone()))));
    assert!(!v.apply(Update::Session(Box::new(s))));
    assert_eq!(v.title(), Some("Export alert"));
    assert_eq!(v.workspace().label(), "starting");
}

#[test]
fn a_reconnect_keeps_everything() {
    let mut v = view_of(&all_events());
    let before = kinds(&v);
    v.apply(Update::Connection(ConnectionState::Retrying {
        in_ms: 3000,
        attempt: 2,
        reason: "eof".into(),
    }));
    v.apply(Update::Connection(ConnectionState::Live));
    assert_eq!(kinds(&v), before);
}

#[test]
fn actions_follow_events_until_the_session_says_otherwise() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(example("tool.required")));
    assert_eq!(v.actions().pending()[0].call_id, "call_4f01aa27");
    assert_eq!(v.turn_phase(), None);
    v.apply(Update::Event(example("tool.resolved")));
    assert!(v.actions().is_empty());
}

#[test]
fn replaying_fifty_thousand_events_pairs_every_call() {
    let mut events = Vec::with_capacity(50_000);
    for i in 0..50_000u64 {
        let seq = Some(i + 1);
        let call = format!("c{}", i / 3);
        events.push(match i % 3 {
            0 => ev("agent.tool_call", seq, json!({"toolCallId": call, "toolName": "bash", "args": {"command": "ls"}})),
            1 => ev("agent.tool_result", seq, json!({"toolCallId": call, "toolName": "bash", "isError": false, "cancelled": false, "summary": "ok"})),
            _ => ev("agent.message", seq, json!({"text": format!("message {i}")})),
        });
    }
    let v = view_of(&events);
    eprintln!("replayed 50,000 events: {:?}", start_elapsed(&events));
    assert_eq!(v.transcript().entries().len(), 16_667 + 16_666);
    let pending = v
        .transcript()
        .entries()
        .iter()
        .filter(|e| matches!(&e.kind, EntryKind::Tool(t) if t.status == CallStatus::Pending))
        .count();
    assert_eq!(pending, 0, "every result found its call");
}

/// Wall time of a replay, printed for people (performance is asserted in benches only).
fn start_elapsed(events: &[Event]) -> std::time::Duration {
    let updates: Vec<Update> = events.iter().cloned().map(Update::Event).collect();
    let mut v = Session::new(EXAMPLE_SESSION);
    let start = std::time::Instant::now();
    for u in updates {
        v.apply(u);
    }
    start.elapsed()
}

fn arb_event() -> impl Strategy<Value = Event> {
    (0..8u8, 0..6u64).prop_map(|(k, n)| {
        let call = format!("c{n}");
        match k {
            0 => ev("agent.message", None, json!({"text": format!("m{n}")})),
            1 => ev("agent.tool_call", None, json!({"toolCallId": call, "toolName": "t", "args": {}})),
            2 => ev("agent.tool_result", None, json!({"toolCallId": call, "toolName": "t", "isError": n % 2 == 0, "cancelled": false, "summary": "s"})),
            3 => ev("approval.requested", None, json!({"toolCallId": call, "name": "bash", "args": {}, "sensitive": false})),
            4 => ev("approval.resolved", None, json!({"toolCallId": call, "approved": true})),
            5 => ev("agent.todos", None, json!({"items": [{"label": call, "status": "pending"}]})),
            6 => ev("turn.started", None, json!({"turnId": call})),
            _ => ev("sandbox.paused", None, json!({"state": "paused"})),
        }
    })
}

proptest! {
    #[test]
    fn duplicates_give_the_same_view_as_the_deduped_sequence(
        events in prop::collection::vec(arb_event(), 1..40),
        repeats in prop::collection::vec(0..3usize, 40),
    ) {
        // Number the events, then deliver each 1–3 times, as a replay after reconnects would.
        let numbered: Vec<Event> = events.into_iter().enumerate()
            .map(|(i, mut e)| { e.seq = Some(i as u64 + 1); e }).collect();
        let mut noisy = Vec::new();
        let mut last_delivered = 0;
        for (i, e) in numbered.iter().enumerate() {
            noisy.push(e.clone());
            for _ in 0..repeats[i] {
                // replay everything from a random earlier point up to here
                let from = last_delivered.min(i);
                noisy.extend(numbered[from..=i].iter().cloned());
            }
            last_delivered = i / 2;
        }
        let clean = view_of(&numbered);
        let dirty = view_of(&noisy);
        prop_assert_eq!(kinds(&clean), kinds(&dirty));
        prop_assert_eq!(clean.recent_events().total(), dirty.recent_events().total());
        prop_assert_eq!(clean.turns(), dirty.turns());
        prop_assert_eq!(clean.workspace(), dirty.workspace());
        prop_assert_eq!(clean.actions(), dirty.actions());
    }
}

/// 100,000 entries are kept for hours: the large variants are boxed so one entry stays small.
#[test]
fn transcript_entry_stays_compact() {
    assert!(std::mem::size_of::<crate::session::transcript::Entry>() <= 88);
}

/// Once the ring is full, every evicted message takes its dedupe key with it: the key map
/// holds no more than the entries kept, however long the session runs.
#[test]
fn dedupe_keys_leave_with_evicted_entries() {
    let mut t = super::transcript::Transcript::default();
    let extra = 1_000;
    for n in 0..super::transcript::TRANSCRIPT_CAPACITY + extra {
        t.apply_event(
            &ev(
                "user.message",
                Some(n as u64),
                json!({"text": format!("m{n}")}),
            ),
            &mut SensitiveCalls::default(),
        );
    }
    assert_eq!(t.entries().len(), super::transcript::TRANSCRIPT_CAPACITY);
    assert_eq!(
        t.entries().capacity(),
        super::transcript::TRANSCRIPT_CAPACITY
    );
    assert_eq!(t.unmatched_keys(), super::transcript::TRANSCRIPT_CAPACITY);
}

/// The byte count the budget is checked against is exactly the sum over the kept entries,
/// whatever in-place updates (tool results, verdicts, answers, todo lists, items merging
/// into event entries) happened meanwhile.
#[test]
fn transcript_byte_count_tracks_in_place_updates() {
    use super::transcript::{Transcript, entry_bytes};
    let recount = |t: &Transcript| t.entries().iter().map(entry_bytes).sum::<usize>();
    let mut t = Transcript::default();
    for round in 0..3 {
        for e in all_events() {
            t.apply_event(&e, &mut SensitiveCalls::default());
            assert_eq!(t.bytes(), recount(&t), "after {} (round {round})", e.kind);
        }
        for item in items() {
            t.apply_item(&item, &mut SensitiveCalls::default());
            assert_eq!(t.bytes(), recount(&t), "after item {}", item.id);
        }
    }
    assert!(t.bytes() > 0);
}

/// Past its byte budget the transcript drops its oldest entries (and their dedupe keys),
/// keeps the newest, and says how many it dropped.
#[test]
fn transcript_budget_drops_the_oldest_entries() {
    use super::transcript::{Transcript, entry_bytes};
    let budget = 20_000;
    let mut t = Transcript::with_budget(budget);
    let total = 1_000;
    for n in 0..total {
        t.apply_event(
            &ev(
                "user.message",
                Some(n),
                json!({"text": format!("{n:04} {}", "x".repeat(95))}),
            ),
            &mut SensitiveCalls::default(),
        );
        assert!(
            t.bytes() <= budget,
            "{} bytes over a {budget} budget",
            t.bytes()
        );
    }
    let kept = t.entries().len() as u64;
    assert!(kept > 50 && kept < total, "kept {kept}");
    assert_eq!(t.dropped() + kept, total);
    assert_eq!(
        t.bytes(),
        t.entries().iter().map(entry_bytes).sum::<usize>()
    );
    // The newest are the ones kept.
    let EntryKind::User { text } = &t.entries().back().unwrap().kind else {
        panic!("a user message")
    };
    assert!(text.starts_with("0999 "));
    assert_eq!(t.entries().front().unwrap().id, t.dropped());
    assert_eq!(t.unmatched_keys(), kept as usize);
}

/// One entry larger than the whole budget is still shown: the newest entry is never dropped.
#[test]
fn transcript_keeps_the_newest_entry_even_over_budget() {
    let mut t = super::transcript::Transcript::with_budget(100);
    t.apply_event(
        &ev("user.message", Some(1), json!({"text": "a".repeat(1_000)})),
        &mut SensitiveCalls::default(),
    );
    t.apply_event(
        &ev("user.message", Some(2), json!({"text": "b".repeat(1_000)})),
        &mut SensitiveCalls::default(),
    );
    assert_eq!(t.entries().len(), 1);
    assert_eq!(t.dropped(), 1);
    assert!(matches!(&t.entries()[0].kind, EntryKind::User { text } if text.starts_with('b')));
}

proptest! {
    /// Whatever mix of new entries and in-place updates arrives, and however small the
    /// budget, the count stays exact and within the budget (or down to the newest entry).
    #[test]
    fn transcript_budget_holds_for_any_sequence(
        events in prop::collection::vec(arb_event(), 1..80),
        budget in 150..3_000usize,
    ) {
        use super::transcript::{Transcript, entry_bytes};
        let mut t = Transcript::with_budget(budget);
        for e in &events {
            t.apply_event(e, &mut SensitiveCalls::default());
            prop_assert_eq!(t.bytes(), t.entries().iter().map(entry_bytes).sum::<usize>());
            prop_assert!(t.bytes() <= budget || t.entries().len() == 1);
            prop_assert_eq!(t.entries().front().map_or(t.dropped(), |e| e.id), t.dropped());
        }
    }
}

/// After a restart the transcript comes back from items: a sensitive approval keeps its
/// flag, and one the session still lists as waiting reads "waiting", not "outcome unknown".
#[test]
fn a_pending_approval_read_back_from_items_keeps_its_flag_and_reads_waiting() {
    let mut item: Item = serde_json::from_value(examples()["items"]["approval"].clone()).unwrap();
    item.detail["sensitive"] = json!(true);
    let call_id = item.detail["toolCallId"].as_str().unwrap().to_string();
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Items(vec![item]));
    let approval = |v: &Session| {
        v.transcript()
            .entries()
            .iter()
            .find_map(|e| match &e.kind {
                EntryKind::Approval(a) => Some((a.sensitive, a.from_history)),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(
        approval(&v),
        (true, true),
        "sensitive, outcome not known yet"
    );
    let mut session: ApiSession = serde_json::from_value(examples()["session"].clone()).unwrap();
    let mut waiting: gobare_api::model::RequiredAction =
        serde_json::from_value(examples()["required_action"].clone()).unwrap();
    waiting.kind = gobare_api::model::RequiredActionKind::Approval;
    waiting.call_id = call_id;
    session.required_actions = vec![waiting.clone()].into();
    v.apply(Update::Session(Box::new(session)));
    assert_eq!(
        approval(&v),
        (true, false),
        "still waiting, per the session"
    );
    assert!(
        v.actions().approval(&waiting).sensitive,
        "the decision reads the flag the item carried: one set per session"
    );
}

/// The same when the session is read before the items arrive.
#[test]
fn a_pending_approval_reads_waiting_whichever_of_session_and_items_comes_first() {
    let mut item: Item = serde_json::from_value(examples()["items"]["approval"].clone()).unwrap();
    item.detail["sensitive"] = json!(true);
    let call_id = item.detail["toolCallId"].as_str().unwrap().to_string();
    let mut session: ApiSession = serde_json::from_value(examples()["session"].clone()).unwrap();
    let mut waiting: gobare_api::model::RequiredAction =
        serde_json::from_value(examples()["required_action"].clone()).unwrap();
    waiting.kind = gobare_api::model::RequiredActionKind::Approval;
    waiting.call_id = call_id;
    session.required_actions = vec![waiting].into();
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Session(Box::new(session)));
    v.apply(Update::Items(vec![item]));
    let from_history = v.transcript().entries().iter().find_map(|e| match &e.kind {
        EntryKind::Approval(a) => Some(a.from_history),
        _ => None,
    });
    assert_eq!(from_history, Some(false));
}

/// The model owns what each wait is: the events' details (sensitive flag, question and
/// options) sit beside the session's list, and a resolution from anywhere drops both.
#[test]
fn the_events_details_of_a_wait_live_in_the_model_until_it_resolves() {
    let action = |kind: &str, call: &str| -> gobare_api::model::RequiredAction {
        serde_json::from_value(json!({"type": kind, "turn_id": "t", "call_id": call})).unwrap()
    };
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(ev(
        "approval.requested",
        Some(1),
        json!({"toolCallId": "c1", "name": "bash", "args": {"command": "rm -rf /tmp/x"}, "sensitive": true}),
    )));
    v.apply(Update::Event(ev(
        "question.asked",
        Some(2),
        json!({"toolCallId": "c2", "question": "Roll back?", "options": ["yes", "no"]}),
    )));
    let listed = [action("approval", "c1"), action("question", "c2")];
    v.actions_mut().replace(&listed);
    let facts = v.actions();
    assert!(facts.approval(&listed[0]).sensitive);
    assert_eq!(facts.approval(&listed[0]).args["command"], "rm -rf /tmp/x");
    assert_eq!(facts.question(&listed[1]).options, vec!["yes", "no"]);

    // Resolved elsewhere (the Console, a rule): only that call goes, with its details.
    v.apply(Update::Event(ev(
        "approval.resolved",
        Some(3),
        json!({"toolCallId": "c1", "approved": true}),
    )));
    let facts = v.actions();
    assert_eq!(
        facts
            .listed()
            .map(|a| a.call_id.as_str())
            .collect::<Vec<_>>(),
        ["c2"]
    );
    assert!(
        !facts.approval(&listed[0]).sensitive,
        "its details went with it"
    );
    v.apply(Update::Event(ev(
        "question.answered",
        Some(4),
        json!({"toolCallId": "c2", "answer": "yes"}),
    )));
    assert!(v.actions().nothing_listed());
}

/// A restart remembers a sensitive approval the history no longer flags.
#[test]
fn a_remembered_sensitive_call_stays_sensitive_in_the_model() {
    let listed: gobare_api::model::RequiredAction = serde_json::from_value(
        json!({"type": "approval", "turn_id": "t", "call_id": "c9", "name": "bash"}),
    )
    .unwrap();
    let mut v = Session::new(EXAMPLE_SESSION);
    let mut known = SensitiveCalls::default();
    known.note("c9", true);
    v.know_sensitive(&known);
    v.actions_mut().replace(std::slice::from_ref(&listed));
    assert!(v.actions().approval(&listed).sensitive);
    assert_eq!(v.actions().approval(&listed).name, "bash");
}

/// A passing notice ("sent — the agent is on it") goes when the agent then waits on you or
/// the turn ends; a warning stays until replaced.
#[test]
fn passing_notices_follow_the_state_and_warnings_stay() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Notice(Some(Notice::new(
        Severity::Quiet,
        "sent — the agent is on it",
    ))));
    v.apply(Update::Event(ev(
        "agent.text",
        None,
        json!({"delta": "hm"}),
    )));
    assert!(
        v.notice().is_some(),
        "a delta changes nothing the user was told"
    );
    v.apply(Update::Event(ev(
        "approval.requested",
        Some(1),
        json!({"toolCallId": "c1", "name": "bash", "args": {}}),
    )));
    assert!(v.notice().is_none(), "the agent waits on you now");

    v.apply(Update::Notice(Some(Notice::new(
        Severity::Warn,
        "cannot save state",
    ))));
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    assert_eq!(v.notice().unwrap().text, "cannot save state");
}

/// The Turn pane's facts come from the stream: what the turn was asked (the message that
/// started it), its steps, the tool in flight and how far its todo list is.
#[test]
fn a_turn_knows_what_it_was_asked_its_steps_tool_and_todos() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let events = [
        ev(
            "user.message",
            Some(1),
            json!({"text": "\nMigrate billing\nthen invoices"}),
        ),
        ev("turn.started", Some(2), json!({"turnId": "t1"})),
        ev(
            "agent.tool_call",
            Some(3),
            json!({"toolCallId": "c1", "toolName": "bash", "args": {"command": "rg sqlx"}}),
        ),
        ev(
            "agent.tool_result",
            Some(4),
            json!({"toolCallId": "c1", "toolName": "bash", "summary": "ok"}),
        ),
        ev(
            "agent.tool_call",
            Some(5),
            json!({"toolCallId": "c2", "toolName": "read", "args": {"path": "src/db.rs"}}),
        ),
        ev(
            "agent.todos",
            Some(6),
            json!({"items": [
            {"label": "Map calls", "status": "done"},
            {"label": "Design the trait", "status": "in_progress"},
            {"label": "Migrate", "status": "pending"}]}),
        ),
    ];
    for e in events {
        v.apply(Update::Event(e));
    }
    let t = v.turns().current().unwrap();
    assert_eq!(t.asked.as_deref(), Some("Migrate billing"));
    assert_eq!(t.steps, 2);
    assert_eq!(
        t.tool_in_flight.as_ref().map(|(n, _)| n.as_str()),
        Some("read")
    );
    let todo = t.todos.as_ref().unwrap();
    assert_eq!((todo.done, todo.total), (1, 3));
    assert_eq!(todo.next.as_deref(), Some("Design the trait"));
}

/// The turn resource may be read before its `turn.started` arrives: it still learns what
/// it was asked.
#[test]
fn a_turn_read_before_its_start_event_still_learns_what_it_was_asked() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(ev(
        "user.message",
        Some(1),
        json!({"text": "fix the export"}),
    )));
    v.apply(Update::Turn(turn("t1", "working", Some(1000), Value::Null)));
    v.apply(Update::Event(ev(
        "turn.started",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    assert_eq!(
        v.turns().current().unwrap().asked.as_deref(),
        Some("fix the export")
    );
}

/// A read before the sandbox existed says "unknown"; that is not a state to list among the
/// workspace's transitions (a restart replaying the events never sees it).
#[test]
fn unknown_is_not_a_workspace_transition() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.workspace.set_state(None, Some(1));
    v.apply(Update::Event(ev(
        "sandbox.created",
        Some(1),
        json!({"state": "running"}),
    )));
    v.apply(Update::Event(ev(
        "sandbox.paused",
        Some(2),
        json!({"state": "paused"}),
    )));
    let states: Vec<_> = v
        .workspace()
        .transitions()
        .iter()
        .map(|(s, _)| s.clone())
        .collect();
    assert_eq!(
        states,
        [Some(WorkspaceState::Running), Some(WorkspaceState::Paused)]
    );
}

fn turn_end(id: &str, outcome: Option<TurnOutcome>) -> EntryKind {
    EntryKind::TurnEnd(Box::new(TurnEndEntry {
        turn_id: id.into(),
        outcome,
    }))
}

fn settled_turn(id: &str, status: &str, started: Option<i64>, error: Value) -> Turn {
    serde_json::from_value(json!({
        "id": id, "session_id": "s", "status": status, "created_at": 1_000,
        "started_at": started, "completed_at": 126_000, "error": error
    }))
    .unwrap()
}

#[test]
fn an_ended_turn_leaves_a_separator_that_the_resource_fills_in() {
    let mut v = Session::new(EXAMPLE_SESSION);
    v.apply(Update::Event(ev(
        "user.message",
        Some(1),
        json!({"text": "go"}),
    )));
    v.apply(Update::Event(ev(
        "turn.started",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(3),
        json!({"turnId": "t1"}),
    )));
    assert_eq!(
        kinds(&v)[1],
        turn_end("t1", None),
        "the separator is there before the outcome is known"
    );
    let done = settled_turn("t1", "completed", Some(1_000), Value::Null);
    assert!(v.apply(Update::Turn(done.clone())));
    assert_eq!(
        kinds(&v)[1],
        turn_end(
            "t1",
            Some(TurnOutcome {
                status: TurnStatus::Completed,
                elapsed_ms: Some(125_000),
                error: None,
            })
        )
    );
    assert!(
        !v.apply(Update::Turn(done)),
        "the same outcome changes nothing"
    );
}

#[test]
fn a_turn_that_failed_before_it_started_leaves_its_reason() {
    let mut v = Session::new(EXAMPLE_SESSION);
    // The resource can arrive first (a turns list read at attach), then the events.
    let failed = settled_turn(
        "t1",
        "failed",
        None,
        json!({"code": "sandbox_error", "message": "workspace destroyed"}),
    );
    let mut failed_at_once = failed.clone();
    failed_at_once.completed_at = Some(1_000);
    v.apply(Update::Turns(vec![failed_at_once]));
    v.apply(Update::Event(ev(
        "user.message",
        Some(1),
        json!({"text": "go"}),
    )));
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    assert_eq!(
        kinds(&v),
        vec![
            EntryKind::User { text: "go".into() },
            turn_end(
                "t1",
                Some(TurnOutcome {
                    status: TurnStatus::Failed,
                    elapsed_ms: Some(0),
                    error: Some("sandbox_error: workspace destroyed".into()),
                })
            )
        ]
    );
}

#[test]
fn a_second_message_inside_a_running_turn_is_a_steer() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let say = |text: &str| ev("user.message", None, json!({ "text": text }));
    // The turn's own message may come after `turn.started` (§8 leaves the order open).
    v.apply(Update::Event(ev(
        "turn.started",
        Some(1),
        json!({"turnId": "t1"}),
    )));
    v.apply(Update::Event(say("first")));
    v.apply(Update::Event(say("go left")));
    v.apply(Update::Event(ev(
        "turn.ended",
        Some(2),
        json!({"turnId": "t1"}),
    )));
    // A message that waited in the queue starts the next turn: not a steer.
    v.apply(Update::Event(say("queued one")));
    v.apply(Update::Event(ev(
        "turn.started",
        Some(3),
        json!({"turnId": "t2"}),
    )));
    v.apply(Update::Event(say("go right")));
    let messages: Vec<_> = kinds(&v)
        .into_iter()
        .filter(|k| matches!(k, EntryKind::User { .. } | EntryKind::Steer { .. }))
        .collect();
    assert_eq!(
        messages,
        vec![
            EntryKind::User {
                text: "first".into()
            },
            EntryKind::Steer {
                text: "go left".into()
            },
            EntryKind::User {
                text: "queued one".into()
            },
            EntryKind::Steer {
                text: "go right".into()
            },
        ]
    );
}

#[test]
fn thinking_blocks_stay_apart_and_fold_away_when_the_answer_settles() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let delta = |kind: &str, d: &str| ev(kind, None, json!({ "delta": d }));
    v.apply(Update::Event(delta("agent.thinking", "Check the logs.")));
    v.apply(Update::Event(delta("agent.thinking", " Then the deploy.")));
    v.apply(Update::Event(delta("agent.text", "Looking")));
    v.apply(Update::Event(delta("agent.thinking", "The deploy it is.")));
    assert_eq!(
        v.transcript().streaming().unwrap().thinking,
        "Check the logs. Then the deploy.\n\nThe deploy it is.",
        "deltas of one block join; a later block starts on its own"
    );
    v.apply(Update::Event(ev(
        "agent.message",
        Some(5),
        json!({"text": "It was the deploy."}),
    )));
    assert!(v.transcript().streaming().is_none());
    assert_eq!(
        kinds(&v),
        vec![EntryKind::Agent {
            text: "It was the deploy.".into()
        }]
    );
}

/// Eight turns replayed; the Turn pane's read covers the last five, and the separators of
/// the three before them wait for the older turns to be read.
#[test]
fn separators_older_than_the_recent_turns_are_filled_by_the_past_turns() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let at = |i: i64| 1_000_000 + i * 10_000;
    let ended = |i: u64| {
        let env = json!({"type": "turn.ended", "seq": i, "created_at": at(i as i64) + 5_000,
                         "payload": {"turnId": format!("t{i}")}});
        Event::parse(&env.to_string()).unwrap()
    };
    let resource = |i: i64| -> Turn {
        serde_json::from_value(json!({
            "id": format!("t{i}"), "session_id": "s", "status": "completed",
            "created_at": at(i), "started_at": at(i), "completed_at": at(i) + 4_000
        }))
        .unwrap()
    };
    for i in 1..=8 {
        v.apply(Update::Event(ended(i)));
    }
    assert_eq!(v.oldest_turn_end_without_outcome(), Some(at(1) + 5_000));
    v.apply(Update::Turns((4..=8).rev().map(resource).collect()));
    assert_eq!(
        v.oldest_turn_end_without_outcome(),
        Some(at(1) + 5_000),
        "the recent read leaves the oldest three"
    );
    assert!(v.apply(Update::PastTurns((1..=8).rev().map(resource).collect())));
    assert_eq!(v.oldest_turn_end_without_outcome(), None);
    let filled = kinds(&v)
        .iter()
        .filter(|k| matches!(k, EntryKind::TurnEnd(t) if t.outcome.as_ref().is_some_and(|o| o.elapsed_ms == Some(4_000))))
        .count();
    assert_eq!(filled, 8);
}

#[test]
fn queue_labels_read_the_position_now_after_a_dequeue() {
    let queued = |seq, text: &str, position| {
        ev(
            "message.queued",
            Some(seq),
            json!({"text": text, "position": position}),
        )
    };
    let v = view_of(&[
        queued(1, "first", 1),
        queued(2, "second", 2),
        queued(3, "third", 3),
        ev("message.dequeued", Some(4), json!({"text": "first"})),
        queued(5, "fourth", 3),
    ]);
    let labels: Vec<(String, Option<u32>)> = kinds(&v)
        .into_iter()
        .filter_map(|k| match k {
            EntryKind::Queued { text, position } => Some((text, position)),
            _ => None,
        })
        .collect();
    let want = |t: &str, p| (t.to_string(), p);
    assert_eq!(
        labels,
        [
            want("first", None),
            want("second", Some(1)),
            want("third", Some(2)),
            want("fourth", Some(3)),
        ]
    );
    let waiting = v.transcript().waiting_queue();
    assert!(waiting.holds("second") && waiting.holds(" fourth "));
    assert!(!waiting.holds("first"));
}

/// A first attach: the newest page of turns is read before the replay reaches those turns.
/// Their separators and the Turn pane say how they ended as they replay, each with its own
/// elapsed time, and no turn is read on its own.
#[test]
fn a_page_read_before_the_replay_settles_the_turns_it_lists_as_they_replay() {
    let mut v = Session::new(EXAMPLE_SESSION);
    let day = 24 * 3_600_000;
    let at = |i: i64| 1_000_000 + i * 60_000;
    let event = |kind: &str, seq: u64, i: i64, created_at: i64| {
        let env = json!({"type": kind, "seq": seq, "created_at": created_at,
                         "payload": {"turnId": format!("t{i}")}});
        Event::parse(&env.to_string()).unwrap()
    };
    let resource = |i: i64| -> Turn {
        serde_json::from_value(json!({
            "id": format!("t{i}"), "session_id": "s", "status": "completed",
            "created_at": at(i), "started_at": at(i) + 200, "completed_at": at(i) + 3_200
        }))
        .unwrap()
    };
    v.apply(Update::Turns((3..=8).rev().map(resource).collect()));
    let _ = v.take_fetches();
    v.apply(Update::Tick(at(8) + 79 * day));
    for i in 1..=8 {
        let seq = 2 * i as u64;
        v.apply(Update::Event(event("turn.started", seq, i, at(i) + 200)));
        v.apply(Update::Event(event(
            "turn.ended",
            seq + 1,
            i,
            at(i) + 3_200,
        )));
    }
    let current = v.turns().current().unwrap();
    assert_eq!(current.id, "t8");
    assert_eq!(v.turn_phase(), Some(TurnPhase::Completed));
    assert_eq!(current.elapsed_ms(v.now_ms()), Some(3_000));
    let fetches = v.take_fetches();
    assert_eq!(
        fetches
            .iter()
            .filter(|f| matches!(f, Fetch::Turn(_)))
            .collect::<Vec<_>>(),
        vec![&Fetch::Turn("t2".into())],
        "only the newest turn the page did not list: {fetches:?}"
    );
    let filled = kinds(&v)
        .iter()
        .filter(|k| matches!(k, EntryKind::TurnEnd(t) if t.outcome.as_ref().is_some_and(|o| o.elapsed_ms == Some(3_000))))
        .count();
    assert_eq!(filled, 6, "t3..t8 from the page");
    assert_eq!(v.oldest_turn_end_without_outcome(), Some(at(1) + 3_200));
    assert!(!v.outcomes_missing_since(Some(at(3))));
    assert!(v.outcomes_missing_since(None));
}
