//! The Turn pane drawn in its states, from the documented example events.

use crate::session::Update;
use crate::ui::pane::Pane;
use crate::ui::screen::Screen;
use crate::ui::tests::*;
use insta::assert_snapshot;
use serde_json::{Value, json};

#[test]
fn a_turn_that_published_nothing_says_none_not_ready() {
    let mut v = full_session();
    v.apply(Update::Turn(turn("completed", Value::Null)));
    let out = render(&v, &mut Screen::new(), 160, 48);
    assert!(out.contains("artifacts: none"), "{out}");
    assert!(!out.contains("artifacts: ready"), "{out}");
}

#[test]
fn the_turn_pane_uses_its_space() {
    let v = busy_session();
    let out = render(&v, &mut zoomed(Pane::Turn), 80, 20);
    for want in [
        "asked Migrate billing to the new ledger",
        "model MiniMax-M3",
        "todo 3/19 · now: Step 4: move table 4 to the ledger",
        "bash cargo test -p ledger",
        "working  1m 35s · 2 steps",
        "queue: 1 message waiting",
        "completed  2m 05s Find why the nightly export fails",
        "failed     9s Roll the export back to v2.3.1",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    assert_snapshot!(out);
}

#[test]
fn the_turn_pane_names_what_waits_in_words() {
    let mut v = view();
    apply(
        &mut v,
        [ev("turn.started", Some(1), json!({"turnId": "turn_1"}))],
    );
    let listed: Vec<gobare_api::model::RequiredAction> = serde_json::from_value(json!([
        {"type": "question", "turn_id": "turn_1", "call_id": "call_q", "name": "question",
         "arguments": {"question": "Which way?"}},
        {"type": "function_call", "turn_id": "turn_1", "call_id": "call_f",
         "name": "lookup_order", "arguments": {"order_id": "A-4471"}}
    ]))
    .unwrap();
    v.actions_mut().replace(&listed);
    let out = render(&v, &mut Screen::new(), 160, 48);
    assert!(
        out.contains("waiting on you: function call · lookup_order"),
        "{out}"
    );
    assert!(!out.contains("function_call lookup_order"), "{out}");
    assert!(!out.contains("question question"), "{out}");
    assert!(out.contains("waiting on you: question"), "{out}");
}

#[test]
fn a_settled_turn_says_how_long_it_took_or_why_that_is_not_known() {
    let mut v = view();
    let created = 1_789_319_000_000i64;
    let turn = |id: &str, at: i64, started: Value, completed: Value| {
        Update::Turn(
            serde_json::from_value(json!({
                "id": id, "session_id": "s", "status": "failed", "created_at": at,
                "started_at": started, "completed_at": completed, "artifacts": "ready",
                "error": {"code": "x", "message": "boom"}
            }))
            .unwrap(),
        )
    };
    v.apply(turn(
        "t_never",
        created,
        Value::Null,
        json!(created + 5_000),
    ));
    v.apply(turn(
        "t_cut",
        created + 10_000,
        json!(created + 10_000),
        Value::Null,
    ));
    v.apply(turn(
        "t_ran",
        created + 15_000,
        json!(created + 15_000),
        json!(created + 24_000),
    ));
    v.apply(turn(
        "t_now",
        created + 30_000,
        json!(created + 30_000),
        json!(created + 34_000),
    ));
    let out = render(&v, &mut zoomed(Pane::Turn), 100, 20);
    assert!(out.contains("failed     never started asked "), "{out}");
    assert!(
        out.contains("failed     (its duration is not known) started "),
        "{out}"
    );
    // Started and ended 9 s apart: how long it ran, then when it started.
    assert!(out.contains("failed     9s started "), "{out}");
}
