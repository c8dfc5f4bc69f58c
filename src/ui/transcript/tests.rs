//! The transcript drawn in its states, from the documented example events: streaming, tools, turns, decisions, scrolling and its memory bounds.

use crate::session::{Session, Update};
use crate::ui::pane::Pane;
use crate::ui::screen::Screen;
use crate::ui::tests::*;
use crate::ui::theme::Theme;
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

#[test]
fn long_transcript_follows_the_bottom() {
    let mut v = view();
    apply(
        &mut v,
        (1..=200).map(|i| {
            let kind = if i % 2 == 0 {
                "agent.message"
            } else {
                "user.message"
            };
            ev(
                kind,
                Some(i),
                json!({"text": format!("message number {i}: **bold** and `code`")}),
            )
        }),
    );
    let out = render(&v, &mut zoomed(Pane::Transcript), 80, 24);
    assert!(out.contains("message number 200"));
    assert!(!out.contains("message number 100:"));
    assert_snapshot!(out);
}

#[test]
fn streaming_text_and_thinking() {
    let mut v = view();
    apply(
        &mut v,
        [
            example("turn.started"),
            example("user.message"),
            ev(
                "agent.thinking",
                None,
                json!({"delta": "The error rate started at 09:12, right after the deploy."}),
            ),
            ev(
                "agent.text",
                None,
                json!({"delta": "Looking at the export handler"}),
            ),
            ev("agent.text", None, json!({"delta": " and its retry loop."})),
        ],
    );
    v.apply(Update::Tick(1_789_319_090_000 + 65_000));
    assert_snapshot!(render(&v, &mut Screen::new(), 100, 30));
}

#[test]
fn tool_call_in_flight_then_done() {
    let mut v = view();
    apply(
        &mut v,
        [example("turn.started"), example("agent.tool_call")],
    );
    let mut ui = zoomed(Pane::Transcript);
    let in_flight = render(&v, &mut ui, 80, 8);
    assert!(in_flight.contains("⋯ write /workspace/outputs/report.md"));
    assert_snapshot!("tool_call_in_flight", in_flight);
    apply(&mut v, [example("agent.tool_result")]);
    let done = render(&v, &mut ui, 80, 8);
    assert!(done.contains("✓ write /workspace/outputs/report.md — Successfully wrote 5 bytes"));
    assert_snapshot!("tool_call_done", done);
}

#[test]
fn failed_turn() {
    let mut v = view();
    apply(
        &mut v,
        [
            example("turn.started"),
            example("agent.error"),
            example("turn.ended"),
        ],
    );
    v.apply(Update::Turn(turn(
        "failed",
        json!({"code": "provider_error", "message": "the model provider returned 502"}),
    )));
    let out = render(&v, &mut zoomed(Pane::Turn), 60, 14);
    assert!(
        out.contains("failed") && out.contains("provider_error"),
        "{out}"
    );
    assert_snapshot!(out);
}

#[test]
fn approvals_questions_todos_and_an_expanded_diff() {
    let mut v = view();
    let diff = "@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n+const c = 4;";
    apply(
        &mut v,
        [
            example("agent.todos"),
            example("approval.requested"),
            example("approval.resolved"),
            example("question.asked"),
            ev(
                "file.changed",
                Some(9_000),
                json!({"path": "/workspace/src/export.ts", "changeType": "modified", "diff": diff}),
            ),
        ],
    );
    let mut ui = zoomed(Pane::Transcript);
    let collapsed = render(&v, &mut ui, 80, 30);
    assert!(collapsed.contains("[diff hidden]"));
    assert!(ui.toggle_nearest_expandable(&v));
    let expanded = render(&v, &mut ui, 80, 30);
    assert!(expanded.contains("+const c = 4;"));
    assert_snapshot!(expanded);
}

#[test]
fn scrolled_up_transcript_stays_put_and_counts_new_entries() {
    let mut v = view();
    apply(
        &mut v,
        (1..=50).map(|i| {
            ev(
                "agent.message",
                Some(i),
                json!({"text": format!("line {i}")}),
            )
        }),
    );
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 60, 18);
    ui.scroll(None, -9);
    let before = render(&v, &mut ui, 60, 18);
    assert!(!ui.follows(Pane::Transcript));
    apply(
        &mut v,
        (51..=53).map(|i| {
            ev(
                "agent.message",
                Some(i),
                json!({"text": format!("line {i}")}),
            )
        }),
    );
    let after = render(&v, &mut ui, 60, 18);
    // Everything but the marker row (the pane's last) stays where it was.
    let top = |s: &str| s.lines().take(12).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        top(&before),
        top(&after),
        "new entries below do not move the view"
    );
    assert!(after.contains("↓ 3 new below"), "{after}");
    assert_snapshot!(after);
    ui.scroll(None, 1_000);
    let bottom = render(&v, &mut ui, 60, 18);
    assert!(ui.follows(Pane::Transcript) && bottom.contains("line 53"));
}

#[test]
fn history_from_items() {
    let all = examples();
    let mut items: Vec<gobare_api::model::Item> = all["items"]
        .as_object()
        .unwrap()
        .values()
        .map(|i| serde_json::from_value(i.clone()).unwrap())
        .collect();
    items.sort_by_key(|i| i.created_at);
    let mut v = view();
    v.apply(Update::Items(items));
    let out = render(&v, &mut zoomed(Pane::Transcript), 90, 24);
    assert_eq!(
        out.matches("write /workspace/outputs/report.md").count(),
        1,
        "one line per call"
    );
    assert_snapshot!(out);
}

#[test]
fn hostile_text_is_shown_not_executed() {
    let mut v = view();
    apply(
        &mut v,
        [ev(
            "agent.message",
            Some(1),
            json!({"text": "evil \u{1b}[2J\u{1b}]0;pwned\u{7} done"}),
        )],
    );
    let out = render(&v, &mut zoomed(Pane::Transcript), 60, 10);
    assert!(out.contains("evil") && out.contains("done"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'));
}

#[test]
fn unknown_event_shows_generically() {
    let mut v = view();
    apply(
        &mut v,
        [ev("agent.dance", Some(3), json!({"steps": [1, 2]}))],
    );
    let out = render(&v, &mut zoomed(Pane::Transcript), 60, 10);
    assert!(out.contains(r#"· agent.dance {"steps":[1,2]}"#), "{out}");
}

#[test]
fn a_huge_transcript_lays_out_only_what_is_visible() {
    let mut v = view();
    apply(
        &mut v,
        (1..=100_000).map(|i| ev("agent.message", Some(i), json!({"text": "short"}))),
    );
    let mut ui = Screen::new();
    render(&v, &mut ui, 160, 48);
    let laid_out = ui.line_cache_len();
    // Printed for people; performance is asserted in benches only.
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let start = std::time::Instant::now();
    for _ in 0..100 {
        term.draw(|f| ui.draw(f, &v, &Theme::no_color(), None))
            .unwrap();
    }
    eprintln!(
        "160x48 frame with 100,000 entries: {:?}",
        start.elapsed() / 100
    );
    assert!(laid_out < 60, "{laid_out} entries laid out for one screen");
}

/// Following a transcript that grows for hours, the cache of wrapped lines stays at its cap:
/// entries that scrolled away are dropped once no frame uses them.
#[test]
fn line_cache_stays_bounded_while_following() {
    let mut v = view();
    let mut ui = Screen::new();
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut most = 0;
    for i in 1..=5_000 {
        v.apply(Update::Event(ev(
            "agent.message",
            Some(i),
            json!({"text": format!("step {i}")}),
        )));
        term.draw(|f| ui.draw(f, &v, &Theme::no_color(), None))
            .unwrap();
        most = most.max(ui.line_cache_len());
    }
    assert!(most <= 512 + 48, "{most} entries cached");
    // What is on screen is still cached: a redraw lays nothing out again.
    assert!(ui.line_cache_len() > 0);
}

/// Scrolled to the very top of a transcript that dropped its oldest entries, the first row
/// says so and where the whole history is.
#[test]
fn dropped_entries_are_announced_at_the_top() {
    let mut v = Session::new("s").with_transcript_budget(4_000);
    apply(
        &mut v,
        (1..=200).map(|i| {
            ev(
                "user.message",
                Some(i),
                json!({"text": format!("message {i}")}),
            )
        }),
    );
    let dropped = v.transcript().dropped();
    assert!(dropped > 0);
    let mut ui = Screen::new();
    let bottom = render(&v, &mut ui, 100, 40);
    assert!(!bottom.contains("not kept in memory"), "{bottom}");
    ui.scroll(None, -10_000);
    let top = render(&v, &mut ui, 100, 40);
    assert!(
        top.contains(&format!("{dropped} earlier entries not kept in memory")),
        "{top}"
    );
    assert!(
        top.contains("no local event log of this session here"),
        "{top}"
    );
    v.set_event_log_here(true);
    let top = render(&v, &mut ui, 100, 40);
    assert!(
        top.contains(&format!("{dropped} earlier entries not kept in memory")),
        "{top}"
    );
    assert!(!top.contains("no local event log"), "{top}");
}

#[test]
fn a_long_paste_shows_collapsed_and_e_expands_it() {
    let mut v = view();
    let pasted: String = (1..=30)
        .map(|i| format!("2026-12-01 09:12:{i:02} export worker 7: batch {i} timed out\n"))
        .collect();
    apply(
        &mut v,
        [
            ev("user.message", Some(1), json!({"text": pasted})),
            ev("user.message", Some(2), json!({"text": "and a short one"})),
        ],
    );
    let mut ui = zoomed(Pane::Transcript);
    let collapsed = render(&v, &mut ui, 80, 16);
    assert!(
        collapsed.contains("… pasted 30 lines — e expands"),
        "{collapsed}"
    );
    assert!(collapsed.contains("batch 4 timed out"));
    assert!(!collapsed.contains("batch 5 timed out"));
    assert_snapshot!("a_long_paste_collapsed", collapsed);
    assert!(ui.toggle_nearest_expandable(&v));
    let expanded = render(&v, &mut ui, 80, 40);
    assert!(expanded.contains("batch 30 timed out"));
    assert!(!expanded.contains("pasted 30 lines"));
    assert_snapshot!("a_long_paste_expanded", expanded);
}

#[test]
fn turn_separators_and_steers() {
    let mut v = view();
    let started_at = Some(1_789_319_000_000i64);
    let turn_ev = |kind: &str, seq: u64, id: &str| ev(kind, Some(seq), json!({ "turnId": id }));
    let say = |seq: u64, text: &str| ev("user.message", Some(seq), json!({ "text": text }));
    let delta = |kind: &str, d: &str| ev(kind, None, json!({ "delta": d }));
    apply(
        &mut v,
        [
            say(1, "Find the regression."),
            turn_ev("turn.started", 2, "t1"),
            say(3, "Only look at export-svc."),
            delta("agent.thinking", "Start from the deploy log."),
            ev(
                "agent.message",
                Some(4),
                json!({"text": "It is export-svc v2.3.2."}),
            ),
            turn_ev("turn.ended", 5, "t1"),
            say(6, "Roll it back."),
            turn_ev("turn.ended", 7, "t2"),
            say(8, "Try again."),
            turn_ev("turn.started", 9, "t3"),
            turn_ev("turn.ended", 10, "t3"),
        ],
    );
    let pending = render(&v, &mut zoomed(Pane::Transcript), 80, 24);
    assert!(pending.contains("── turn ended ──"), "{pending}");
    v.apply(Update::Turn(settled(
        "t1",
        "completed",
        started_at,
        125_000,
        Value::Null,
    )));
    v.apply(Update::Turn(settled(
        "t2",
        "failed",
        None,
        0,
        json!({"code": "sandbox_error", "message": "workspace destroyed"}),
    )));
    v.apply(Update::Turn(settled(
        "t3",
        "cancelled",
        started_at,
        12_000,
        Value::Null,
    )));
    let out = render(&v, &mut zoomed(Pane::Transcript), 80, 30);
    for line in [
        "── ✓ completed in 2m 05s ──",
        "── ✗ failed after 0s: workspace destroyed — your next message rebuilds it ──",
        "── ⊘ cancelled after 12s ──",
        "▌ you · steer",
    ] {
        assert!(out.contains(line), "{line} missing:\n{out}");
    }
    assert_snapshot!(out);
}

#[test]
fn a_failed_turns_separator_wraps_and_keeps_what_to_do() {
    let mut v = view();
    apply(
        &mut v,
        [
            ev("turn.started", Some(1), json!({ "turnId": "t1" })),
            ev("turn.ended", Some(2), json!({ "turnId": "t1" })),
        ],
    );
    v.apply(Update::Turn(settled(
        "t1",
        "failed",
        None,
        0,
        json!({"code": "sandbox_error", "message": "the sandbox host was drained for maintenance"}),
    )));
    let out = render(&v, &mut zoomed(Pane::Transcript), 50, 20);
    let plain = out.replace(['│', '┃', '"'], " ");
    let words: Vec<&str> = plain.split_whitespace().collect();
    let said = words.join(" ");
    assert!(
        said.contains("drained for maintenance — your next message rebuilds it ──"),
        "the separator was cut:\n{out}"
    );
}

#[test]
fn a_created_file_reads_with_one_space_and_a_turn_without_its_message_says_when() {
    let mut v = view();
    apply(
        &mut v,
        [
            ev(
                "file.changed",
                Some(1),
                json!({"path": "/workspace/src/pg.rs", "changeType": "created"}),
            ),
            ev(
                "turn.ended",
                Some(2),
                json!({"turnId": "turn_1bdef0a94c2e47f3"}),
            ),
        ],
    );
    v.apply(Update::Turns(vec![turn("completed", Value::Null)]));
    v.apply(Update::Event(ev(
        "turn.started",
        Some(3),
        json!({"turnId": "turn_2"}),
    )));
    let out = render(&v, &mut Screen::new(), 160, 48);
    assert!(out.contains("± created /workspace/src/pg.rs"), "{out}");
    // The Turn pane's recent row: outcome, duration, when (the Events pane stays raw).
    assert!(
        out.contains("✓ completed  2m 05s started 17:04:50"),
        "{out}"
    );
}
