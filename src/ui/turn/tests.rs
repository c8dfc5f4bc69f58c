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
