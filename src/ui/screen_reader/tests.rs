use super::*;
use crate::session::Update;
use gobare_api::model::Event;
use serde_json::{Value, json};

fn ev(kind: &str, seq: u64, payload: Value) -> Update {
    let env = json!({"type": kind, "seq": seq, "created_at": 1000, "payload": payload});
    Update::Event(Event::parse(&env.to_string()).unwrap())
}

/// The session resource listing `actions` as its required actions.
fn listing(actions: Value) -> Update {
    let examples: Value =
        serde_json::from_str(include_str!("../../../assets/event-payloads.json")).unwrap();
    let mut session = examples["session"].clone();
    session["id"] = json!("s1");
    session["required_actions"] = actions;
    Update::Session(Box::new(serde_json::from_value(session).unwrap()))
}

fn said(reader: &mut ScreenReader, view: &Session) -> Vec<String> {
    reader.new_lines(view, None, false)
}

/// Every escape sequence in `bytes` that moves the cursor to a place (absolute), up, or
/// clears or swaps the screen: what the mode must never write.
pub(crate) fn forbidden_sequences(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut found = Vec::new();
    let mut rest = text.as_ref();
    while let Some(at) = rest.find('\x1b') {
        let seq = &rest[at + 1..];
        if let Some(csi) = seq.strip_prefix('[') {
            let end = csi
                .find(|c: char| ('@'..='~').contains(&c))
                .unwrap_or(csi.len().saturating_sub(1));
            let (params, last) = csi.split_at(end);
            let last = last.chars().next().unwrap_or(' ');
            let private_screen = params.starts_with('?')
                && ["1049", "1047", "47"]
                    .iter()
                    .any(|m| params[1..].split(';').any(|p| p == *m));
            if matches!(
                last,
                'H' | 'f' | 'd' | 'G' | '`' | 'A' | 'F' | 'J' | 'r' | 'S' | 'T'
            ) && !params.starts_with('?')
                || private_screen
            {
                found.push(format!("ESC[{params}{last}"));
            }
        } else if seq.starts_with('M') || seq.starts_with('c') {
            // Reverse index (up a row), full reset.
            found.push(format!("ESC{}", &seq[..1]));
        }
        rest = &rest[at + 1..];
    }
    found
}

#[test]
fn a_turn_reads_as_role_labelled_lines_each_said_once_it_settles() {
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    view.apply(ev(
        "user.message",
        1,
        json!({"text": "fix the export\nplease"}),
    ));
    view.apply(ev("turn.started", 2, json!({"turnId": "t1"})));
    view.apply(ev(
        "agent.tool_call",
        3,
        json!({"toolCallId": "c1", "toolName": "bash", "args": {"command": "ls"}}),
    ));
    assert_eq!(
        said(&mut reader, &view),
        ["you: fix the export", "  please", "agent: working"],
        "a running tool call says nothing yet; the turn says working once"
    );
    assert!(said(&mut reader, &view).is_empty(), "nothing is said twice");
    view.apply(ev(
        "agent.tool_result",
        4,
        json!({"toolCallId": "c1", "toolName": "bash", "isError": true, "summary": "no such file\nmore"}),
    ));
    view.apply(ev(
        "agent.message",
        5,
        json!({"text": "It is \u{1b}[31mfixed"}),
    ));
    let lines = said(&mut reader, &view);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("tool bash "), "{lines:?}");
    assert!(lines[0].ends_with(": failed — no such file"), "{lines:?}");
    // Server text is made inert: the escape is shown, never written.
    assert!(lines[1].starts_with("agent: It is "), "{lines:?}");
    assert!(!lines[1].contains('\u{1b}'), "{lines:?}");
}

#[test]
fn an_approval_is_announced_with_its_keys_once_and_its_outcome_said_when_resolved() {
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    view.apply(ev("turn.started", 1, json!({"turnId": "t1"})));
    view.apply(ev(
        "approval.requested",
        2,
        json!({"toolCallId": "a1", "name": "bash", "args": {"command": "systemctl restart export"}, "sensitive": true}),
    ));
    assert_eq!(
        said(&mut reader, &view),
        ["agent: working"],
        "what an event asks is announced once the session lists it (only that can be answered)"
    );
    view.apply(listing(
        json!([{"type": "approval", "turn_id": "t1", "call_id": "a1",
        "name": "bash", "arguments": {"command": "systemctl restart export"},
        "created_at": 1000, "expires_at": null}]),
    ));
    let lines = said(&mut reader, &view).join("\n");
    assert!(
        lines.contains("waiting for you: The agent asks to run a tool"),
        "{lines}"
    );
    assert!(lines.contains("systemctl restart export"), "{lines}");
    assert!(lines.contains("gobare-tui attach s1"), "{lines}");
    assert!(said(&mut reader, &view).is_empty());
    view.apply(listing(json!([])));
    view.apply(ev(
        "approval.resolved",
        3,
        json!({"toolCallId": "a1", "approved": false, "code": "denied_by_rule"}),
    ));
    let lines = said(&mut reader, &view);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("sensitive approval for bash"),
        "{lines:?}"
    );
    assert!(lines[0].ends_with("denied (denied_by_rule)"), "{lines:?}");
}

#[test]
fn a_todo_list_is_said_whole_once_then_only_what_changed() {
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    let todos = |a: &str, b: &str| json!({"items": [{"label": "Read the alert", "status": a}, {"label": "Write it up", "status": b}]});
    view.apply(ev("agent.todos", 1, todos("pending", "pending")));
    assert_eq!(
        said(&mut reader, &view),
        [
            "todo list, 0 of 2 done:",
            "  1. Read the alert (to do)",
            "  2. Write it up (to do)"
        ]
    );
    view.apply(ev("agent.todos", 2, todos("done", "in_progress")));
    assert_eq!(
        said(&mut reader, &view),
        [
            "todo done: Read the alert",
            "todo in progress: Write it up (1 of 2 done)"
        ]
    );
    view.apply(ev("user.message", 3, json!({"text": "next"})));
    assert_eq!(said(&mut reader, &view), ["you: next"]);
}

#[test]
fn opening_on_a_long_history_says_its_last_entries_and_counts_the_rest() {
    let mut view = Session::new("s1");
    for seq in 1..=25 {
        view.apply(ev("user.message", seq, json!({"text": format!("m{seq}")})));
    }
    let mut reader = ScreenReader::new("--screen-reader", "s1");
    let screen = Screen::new();
    assert_eq!(
        reader.new_lines(&view, Some(&screen), true).len(),
        1,
        "only the greeting while the history replays"
    );
    let lines = reader.new_lines(&view, Some(&screen), false);
    assert!(lines[0].starts_with("15 earlier entries"), "{lines:?}");
    assert_eq!(lines[1], "you: m16");
    assert_eq!(lines.last().unwrap(), "you: m25");
}

#[test]
fn a_frame_writes_lines_above_the_input_line_and_never_moves_up_or_clears_the_screen() {
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::new("--screen-reader", "s1");
    let mut screen = Screen::new();
    screen.composer.set_text("hello there");
    let first = reader.frame(&view, &screen, false, 80);
    view.apply(ev("user.message", 1, json!({"text": "sent"})));
    let second = reader.frame(&view, &screen, false, 80);
    let third = reader.frame(&view, &screen, false, 80);
    assert!(third.is_empty(), "nothing changed, nothing written");
    let second = String::from_utf8(second).unwrap();
    assert_eq!(
        second,
        "\r\x1b[Kyou: sent\r\n\r\x1b[K> hello there\r\x1b[13C"
    );
    for bytes in [first, second.into_bytes()] {
        assert_eq!(forbidden_sequences(&bytes), Vec::<String>::new());
    }
    assert_eq!(
        forbidden_sequences(b"\x1b[2J\x1b[1;1H\x1b[3A\x1b[?1049h\x1bM"),
        ["ESC[2J", "ESC[1;1H", "ESC[3A", "ESC[?1049h", "ESCM"],
        "the checker sees what it looks for"
    );
}

#[test]
fn the_input_line_is_a_window_around_the_cursor_that_never_wraps() {
    // The cursor's own cell is kept at the end.
    let (shown, at) = window("abcdefghij", 10, 5);
    assert_eq!((shown.as_str(), at), ("ghij", 4));
    let (shown, at) = window("abcdefghij", 0, 5);
    assert_eq!((shown.as_str(), at), ("abcde", 0));
    // Wide characters count two cells.
    let (shown, at) = window("日本語テキスト", 7, 7);
    assert_eq!((shown.as_str(), at), ("キスト", 6));
    assert!(text::width(&shown) < 7);
}

/// Whether `line` starts as one of the app's own lines does: a role, then a colon.
fn starts_with_a_role(line: &str) -> bool {
    [
        "you:",
        "agent:",
        "tool ",
        "waiting for you:",
        "error:",
        "context:",
        "turn ",
    ]
    .iter()
    .any(|role| line.starts_with(role))
}

#[test]
fn lines_inside_a_message_or_a_question_never_start_as_the_apps_own() {
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    let forged = "Done.\nyou: also deploy to production\ntool bash rm -rf /: ok\n\nagent: bye";
    view.apply(ev("agent.message", 1, json!({"text": forged})));
    view.apply(ev("turn.started", 2, json!({"turnId": "t1"})));
    view.apply(ev(
        "question.asked",
        3,
        json!({"toolCallId": "q1", "question": format!("Which?\n{forged}"), "options": []}),
    ));
    view.apply(listing(
        json!([{"type": "question", "turn_id": "t1", "call_id": "q1",
        "question": format!("Which?\n{forged}"), "options": [],
        "created_at": 1000, "expires_at": null}]),
    ));
    let lines = said(&mut reader, &view);
    assert_eq!(lines[0], "agent: Done.");
    for line in &lines[1..] {
        assert!(
            !starts_with_a_role(line)
                || line == "agent: working"
                || line.starts_with("waiting for you: "),
            "{line:?} in {lines:#?}"
        );
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("waiting for you: "))
            .count(),
        1,
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .filter(|l| l.contains("you: also deploy"))
            .count()
            >= 2,
        "the message's and the question's: {lines:#?}"
    );
    assert!(
        lines.contains(&"  you: also deploy to production".to_string()),
        "{lines:#?}"
    );
    assert!(lines.contains(&"  tool bash rm -rf /: ok".to_string()));
    assert!(lines.contains(&String::new()), "a blank line stays blank");
}

/// A settled turn as the server lists it.
fn turn_read(id: &str, created: i64, started: i64, completed: i64) -> Update {
    Update::Turn(
        serde_json::from_value(json!({
            "id": id, "object": "turn", "status": "completed",
            "created_at": created, "started_at": started, "completed_at": completed,
        }))
        .unwrap(),
    )
}

/// Two turns that ended in one batch of events.
fn two_turns_in_one_batch(view: &mut Session) {
    view.apply(ev("user.message", 1, json!({"text": "first"})));
    view.apply(ev("turn.started", 2, json!({"turnId": "t1"})));
    view.apply(ev("agent.message", 3, json!({"text": "one done"})));
    view.apply(ev("turn.ended", 4, json!({"turnId": "t1"})));
    view.apply(ev("user.message", 5, json!({"text": "second"})));
    view.apply(ev("turn.started", 6, json!({"turnId": "t2"})));
    view.apply(ev("agent.message", 7, json!({"text": "two done"})));
    view.apply(ev("turn.ended", 8, json!({"turnId": "t2"})));
}

#[test]
fn follow_says_each_turns_ending_once_and_in_its_place_however_the_events_are_batched() {
    let t0 = std::time::Instant::now();
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    two_turns_in_one_batch(&mut view);
    let mut all = Vec::new();
    reader.set_clock(t0);
    all.extend(said(&mut reader, &view));
    assert_eq!(
        all,
        ["you: first", "agent: one done"],
        "turn 2 waits for turn 1's ending"
    );
    // Turn 2's outcome is read first: still nothing of it before turn 1's ending.
    view.apply(turn_read("t2", 5_000, 5_000, 8_000));
    all.extend(said(&mut reader, &view));
    assert_eq!(all.len(), 2, "{all:?}");
    view.apply(turn_read("t1", 1_000, 1_000, 3_000));
    all.extend(said(&mut reader, &view));
    assert_eq!(
        all,
        [
            "you: first",
            "agent: one done",
            "turn completed in 2s",
            "you: second",
            "agent: two done",
            "turn completed in 3s",
        ]
    );
    assert!(said(&mut reader, &view).is_empty(), "each once");
}

#[test]
fn follow_says_an_ending_whose_outcome_never_comes_once_after_a_wait() {
    let t0 = std::time::Instant::now();
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    two_turns_in_one_batch(&mut view);
    reader.set_clock(t0);
    assert_eq!(said(&mut reader, &view).len(), 2);
    assert_eq!(reader.ending_deadline(), Some(t0 + ENDING_WAIT));
    reader.set_clock(t0 + ENDING_WAIT);
    let lines = said(&mut reader, &view);
    assert_eq!(
        lines,
        [words::ENDING_UNREAD, "you: second", "agent: two done"],
        "turn 2's ending waits its own while"
    );
    // Turn 1's outcome comes late: it was said already, so it is not said again.
    view.apply(turn_read("t1", 1_000, 1_000, 3_000));
    view.apply(turn_read("t2", 5_000, 5_000, 8_000));
    assert_eq!(said(&mut reader, &view), ["turn completed in 3s"]);
}

#[test]
fn follow_says_the_connections_changes_aside_not_among_the_sessions_lines() {
    use gobare_api::stream::ConnectionState;
    let mut view = Session::new("s1");
    let mut reader = ScreenReader::following();
    view.apply(Update::Connection(ConnectionState::Live));
    said(&mut reader, &view);
    view.apply(Update::Connection(ConnectionState::Retrying {
        in_ms: 1000,
        attempt: 1,
        reason: "reset".into(),
    }));
    assert!(said(&mut reader, &view).is_empty(), "not on stdout");
    assert_eq!(reader.take_aside(), ["connection lost; reconnecting"]);
    view.apply(Update::Connection(ConnectionState::Live));
    assert!(said(&mut reader, &view).is_empty());
    assert_eq!(reader.take_aside(), ["connected again"]);
}
