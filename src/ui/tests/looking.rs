//! Snapshots and behaviour of looking back: the selection (kept on its entry while the
//! stream goes on, cleared when its entry leaves memory), expanded tool calls and diffs,
//! the inspector, timestamps.

use super::*;
use crate::session::recent_events::RecentEvent;
use crate::ui::overlays::inspector;

fn msg(kind: &str, seq: u64, text: &str) -> Event {
    ev(kind, Some(seq), json!({"text": text}))
}

/// A turn: a message, a tool call with its result, a diff, the answer.
fn one_turn(v: &mut Session) {
    let diff = "--- a/src/export.ts\n+++ b/src/export.ts\n@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n+const c = 4;";
    apply(
        v,
        [
            msg("user.message", 1, "Write the report"),
            ev("turn.started", Some(2), json!({"turnId": "turn_1"})),
            ev(
                "agent.tool_call",
                Some(3),
                json!({"toolCallId": "c1", "toolName": "bash", "args": {"command": "ls -la /workspace", "timeout": 30}}),
            ),
            ev(
                "agent.tool_result",
                Some(4),
                json!({"toolCallId": "c1", "toolName": "bash", "isError": false, "cancelled": false, "exitCode": 0, "summary": "total 8\ndrwxr-xr-x 2 agent agent 4096 .\n-rw-r--r-- 1 agent agent   12 notes.md"}),
            ),
            ev(
                "file.changed",
                Some(5),
                json!({"path": "/workspace/src/export.ts", "changeType": "modified", "diff": diff}),
            ),
            msg(
                "agent.message",
                6,
                "Done: see https://p-4f1c8e02a7b1.gobare.dev for the preview.",
            ),
            ev("turn.ended", Some(7), json!({"turnId": "turn_1"})),
        ],
    );
}

fn selected_id(ui: &Screen, v: &Session) -> Option<u64> {
    ui.selected_entry(v).map(|e| e.id)
}

#[test]
fn the_first_move_selects_the_bottom_entry_and_keys_walk_the_entries() {
    let mut v = view();
    one_turn(&mut v);
    // Ten minutes after the last event: relative times on the headers.
    v.apply(Update::Tick(1_789_319_090_000 + 7_000 + 10 * 60_000));
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 90, 24);
    ui.select_by(&v, -1);
    let last = v.transcript().next_id() - 1;
    assert_eq!(
        selected_id(&ui, &v),
        Some(last),
        "the first press selects the bottom"
    );
    ui.select_by(&v, -1);
    let out = render(&v, &mut ui, 90, 24);
    assert_eq!(selected_id(&ui, &v), Some(last - 1));
    // The agent's message is selected: its absolute time in the title and on its header.
    assert!(out.contains("[selected · 17:04:56]"), "{out}");
    assert!(out.contains("◆ agent") && out.contains("17:04:56"), "{out}");
    assert!(out.contains("10m ago"), "the others stay relative: {out}");
    assert_snapshot!("selection_on_the_answer", out);

    // `[` goes to the message that started the turn, `!` finds no error.
    assert!(ui.select_turn(&v, false));
    assert!(matches!(
        ui.selected_entry(&v).unwrap().kind,
        crate::session::transcript::EntryKind::User { .. }
    ));
    assert!(!ui.select_next_error(&v));
    // Esc clears the selection first.
    assert!(ui.clear_selection());
    assert!(!ui.clear_selection());
}

#[test]
fn a_selected_tool_call_and_diff_expand_in_place() {
    let mut v = view();
    one_turn(&mut v);
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 90, 30);
    ui.select_by(&v, -1);
    // Up from the turn's end: the answer, the diff, the tool call.
    ui.select_by(&v, -3);
    assert_eq!(ui.transcript_toggle_selected(&v), Some(true));
    let tool = render(&v, &mut ui, 90, 30);
    assert!(
        tool.contains("\"command\": \"ls -la /workspace\""),
        "{tool}"
    );
    assert!(tool.contains("notes.md"), "the whole output: {tool}");
    assert_snapshot!("selection_expanded_tool_call", tool);

    ui.select_by(&v, 1);
    assert_eq!(ui.transcript_toggle_selected(&v), Some(true));
    let diff = render(&v, &mut ui, 90, 30);
    assert!(
        diff.contains("+const c = 4;") && diff.contains("+++ b/src/export.ts"),
        "{diff}"
    );
    assert_snapshot!("selection_expanded_diff", diff);
}

#[test]
fn the_selection_stays_on_its_entry_as_the_stream_goes_on_and_goes_when_it_is_evicted() {
    let mut v = view().with_transcript_budget(4 * 1024);
    one_turn(&mut v);
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 90, 20);
    ui.select_by(&v, -1);
    ui.select_by(&v, -1);
    let id = selected_id(&ui, &v).unwrap();
    let text = ui.selected_entry(&v).unwrap().copy_text();
    for seq in 10..14 {
        apply(&mut v, [msg("agent.message", seq, &format!("later {seq}"))]);
        render(&v, &mut ui, 90, 20);
        assert_eq!(selected_id(&ui, &v), Some(id), "still the same entry");
        assert_eq!(ui.selected_entry(&v).unwrap().copy_text(), text);
    }
    // Enough new text to push it out of the budget.
    for seq in 20..60 {
        apply(&mut v, [msg("agent.message", seq, &"x".repeat(400))]);
    }
    assert!(v.transcript().get(id).is_none(), "evicted");
    let out = render(&v, &mut ui, 90, 20);
    assert_eq!(selected_id(&ui, &v), None);
    assert!(!out.contains("[selected"), "{out}");
    // The next move starts again from the bottom.
    ui.select_by(&v, -1);
    assert_eq!(selected_id(&ui, &v), Some(v.transcript().next_id() - 1));
}

#[test]
fn events_rows_are_selected_and_the_inspector_shows_the_whole_event_sanitized() {
    let mut v = view();
    one_turn(&mut v);
    let mut ui = zoomed(Pane::Events);
    render(&v, &mut ui, 100, 14);
    ui.select_by(&v, -1);
    ui.select_by(&v, -2);
    let row: RecentEvent = ui.selected_event(&v).unwrap().clone();
    assert_eq!(row.kind.as_str(), "file.changed");
    // As logged: an escape in the server's text, a credential in the arguments.
    let raw = json!({
        "type": "file.changed", "seq": row.seq, "created_at": row.created_at,
        "payload": {"path": "/workspace/src/export.ts\u{1b}]0;owned\u{7}", "changeType": "modified",
                    "note": "token gbr_pat_abcdefghijklmnopqrstuvwxyz012345"}
    })
    .to_string();
    ui.open_overlay(Box::new(inspector::pager(
        &row,
        Some(raw.as_bytes()),
        &Theme::no_color(),
    )));
    let out = render(&v, &mut ui, 100, 20);
    assert!(out.contains("\"changeType\": \"modified\""), "{out}");
    assert!(
        !out.contains("gbr_pat_abcdefghijklmnopqrstuvwxyz012345"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "{out}");
    assert_snapshot!("inspector", out);

    // Without the log: what the pane knows, saying so.
    let p = inspector::pager(&row, None, &Theme::no_color());
    ui.open_overlay(Box::new(p));
    let out = render(&v, &mut ui, 100, 20);
    assert!(out.contains("not in the local event log"), "{out}");
}

#[test]
fn times_show_their_date_once_the_session_spans_days() {
    let mut v = view();
    let day = 86_400_000i64;
    let at = |seq: u64, t: i64| {
        let env = json!({"type": "user.message", "seq": seq, "created_at": t, "payload": {"text": format!("message {seq}")}});
        Event::parse(&env.to_string()).unwrap()
    };
    apply(
        &mut v,
        [
            at(1, 1_789_319_090_000),
            at(2, 1_789_319_090_000 + day + 3_600_000),
        ],
    );
    v.apply(Update::Tick(1_789_319_090_000 + 2 * day));
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 16);
    ui.select_by(&v, -1);
    ui.select_by(&v, -1);
    let out = render(&v, &mut ui, 80, 16);
    assert!(out.contains("2026-09-13 17:04:50"), "{out}");
    assert!(out.contains("23h ago"), "{out}");
    assert_snapshot!("timestamps_across_days", out);
}

#[test]
fn web_links_drawn_in_the_transcript_are_found_for_osc8() {
    let mut v = view();
    apply(&mut v, [example("preview.ready")]);
    let mut ui = Screen::new();
    let out = render(&v, &mut ui, 120, 30);
    let urls: Vec<&str> = ui.links().iter().map(|l| l.url.as_str()).collect();
    assert!(
        urls.contains(&"https://p-4f1c8e02a7b1.gobare.dev"),
        "{urls:?}\n{out}"
    );
}

#[test]
fn the_error_key_goes_to_the_newest_error_then_on_round_the_oldest() {
    let mut v = view();
    apply(
        &mut v,
        [
            msg("user.message", 1, "go"),
            ev("agent.error", Some(2), json!({"message": "first failure"})),
            ev(
                "agent.tool_call",
                Some(3),
                json!({"toolCallId": "c9", "toolName": "bash", "args": {"command": "false"}}),
            ),
            ev(
                "agent.tool_result",
                Some(4),
                json!({"toolCallId": "c9", "toolName": "bash", "isError": true, "cancelled": false, "exitCode": 1, "summary": ""}),
            ),
            msg("agent.message", 5, "I could not do it."),
        ],
    );
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 20);
    let kind = |ui: &Screen| format!("{:?}", ui.selected_entry(&v).unwrap().kind);
    assert!(ui.select_next_error(&v));
    assert!(kind(&ui).starts_with("Tool"), "the newest: {}", kind(&ui));
    assert!(ui.select_next_error(&v));
    assert!(
        kind(&ui).contains("first failure"),
        "round to the oldest: {}",
        kind(&ui)
    );
    assert!(ui.select_next_error(&v));
    assert!(kind(&ui).starts_with("Tool"));
}

#[test]
fn copying_a_message_takes_it_whole_code_blocks_and_all() {
    let mut v = view();
    let text = "Run this:\n\n```sh\nfor f in *.md; do\n    wc -l \"$f\"\ndone\n```\n\nThen check https://example.com/a.";
    apply(&mut v, [msg("agent.message", 1, text)]);
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 30, 20);
    ui.select_by(&v, -1);
    let entry = ui.selected_entry(&v).unwrap();
    assert_eq!(
        entry.copy_text(),
        text,
        "as written, not as wrapped on screen"
    );
    assert_eq!(entry.first_link().as_deref(), Some("https://example.com/a"));
}

/// `n` messages, "message 1" … "message n", one entry each.
fn messages(v: &mut Session, n: u64) {
    apply(
        v,
        (1..=n).map(|seq| msg("user.message", seq, &format!("message {seq}"))),
    );
}

fn selected_text(ui: &Screen, v: &Session) -> Option<String> {
    ui.selected_entry(v).map(|e| e.copy_text())
}

#[test]
fn after_home_the_first_move_down_selects_from_the_top() {
    let mut v = view();
    messages(&mut v, 40);
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 16);
    ui.scroll(None, -1_000_000);
    let out = render(&v, &mut ui, 80, 16);
    assert!(out.contains("message 1 "), "{out}");
    ui.select_by(&v, 1);
    assert_eq!(selected_text(&ui, &v).as_deref(), Some("message 1"));
    ui.select_by(&v, 1);
    assert_eq!(selected_text(&ui, &v).as_deref(), Some("message 2"));

    // Following the bottom, the first move (either way) starts at the newest.
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 16);
    ui.select_by(&v, 1);
    assert_eq!(selected_text(&ui, &v).as_deref(), Some("message 40"));
}

#[test]
fn bang_walks_the_errors_newest_to_oldest_then_round_to_the_newest() {
    let mut v = view();
    let error = |seq: u64, text: &str| ev("agent.error", Some(seq), json!({"message": text}));
    apply(
        &mut v,
        [
            error(1, "oldest failure"),
            msg("user.message", 2, "between"),
            error(3, "middle failure"),
            msg("user.message", 4, "between again"),
            error(5, "newest failure"),
            msg("agent.message", 6, "all done"),
        ],
    );
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 20);
    let mut seen = Vec::new();
    for _ in 0..4 {
        assert!(ui.select_next_error(&v));
        seen.push(selected_text(&ui, &v).unwrap());
    }
    assert_eq!(
        seen,
        [
            "newest failure",
            "middle failure",
            "oldest failure",
            "newest failure"
        ]
    );
}

#[test]
fn a_search_match_stepped_to_becomes_the_selection() {
    let mut v = view();
    messages(&mut v, 30);
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 16);
    let entry_of = |v: &Session, text: &str| {
        v.transcript()
            .entries()
            .iter()
            .find(|e| e.copy_text() == text)
            .map(|e| e.id)
    };
    let hit = crate::search::Hit {
        seq: 3,
        entry: entry_of(&v, "message 3"),
    };
    ui.select_match(&v, hit);
    assert_eq!(selected_text(&ui, &v).as_deref(), Some("message 3"));
    let out = render(&v, &mut ui, 80, 16);
    assert!(out.contains("[selected"), "scrolled to it: {out}");
    assert!(out.contains("message 3 "), "{out}");

    // From a pane without a selection the transcript takes the focus with the match.
    let mut ui = zoomed(Pane::Turn);
    render(&v, &mut ui, 80, 16);
    ui.select_match(&v, hit);
    assert_eq!(ui.focus(), Pane::Transcript);
    assert_eq!(selected_text(&ui, &v).as_deref(), Some("message 3"));

    // In the Events pane its row is the selection.
    let mut ui = zoomed(Pane::Events);
    render(&v, &mut ui, 80, 16);
    ui.select_match(&v, hit);
    assert_eq!(ui.selected_event(&v).and_then(|r| r.seq), Some(3));
}

#[test]
fn after_a_send_the_transcript_follows_the_bottom_again() {
    let mut v = view();
    messages(&mut v, 30);
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 16);
    ui.select_by(&v, -1);
    ui.select_by(&v, -20);
    render(&v, &mut ui, 80, 16);
    ui.follow_transcript();
    apply(
        &mut v,
        (31..=50).map(|seq| msg("agent.message", seq, &format!("reply {seq}"))),
    );
    let out = render(&v, &mut ui, 80, 16);
    assert_eq!(selected_text(&ui, &v), None);
    assert!(ui.follows(Pane::Transcript));
    assert!(!out.contains("new below"), "{out}");
    assert!(out.contains("reply 50"), "{out}");
}

#[test]
fn the_screen_knows_when_it_shows_a_relative_time_so_the_clock_ticks_only_then() {
    let mut v = view();
    let mut ui = zoomed(Pane::Transcript);
    render(&v, &mut ui, 80, 16);
    assert!(!ui.shows_relative_times(), "an empty transcript");
    apply(&mut v, [msg("user.message", 1, "hello")]);
    v.apply(Update::Tick(1_789_319_091_000 + 180_000));
    let out = render(&v, &mut ui, 80, 16);
    assert!(out.contains("3m ago"), "{out}");
    assert!(ui.shows_relative_times());
    // Selected, the entry shows its absolute time: nothing on screen moves with the clock.
    ui.select_by(&v, -1);
    let out = render(&v, &mut ui, 80, 16);
    assert!(!out.contains("ago"), "{out}");
    assert!(!ui.shows_relative_times());
}
