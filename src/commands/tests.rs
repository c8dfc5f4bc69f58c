//! What every machine-readable output of the subcommands shares, checked across them: the
//! same set of characters escaped, the JSON's meaning kept.

use crate::sessions::first_message::FirstMessages;
use gobare_api::text;
use serde_json::{Value, json};

/// Server text with a member of each class: ESC (an OSC title), a C1 CSI, DEL, a bidi
/// override, a zero-width space, a line separator, a BOM.
const HOSTILE: &str = "a\u{1b}]0;owned\u{7}b\u{9b}31m\u{7f}\u{202e}txt\u{200b}\u{2028}\u{feff}z";

fn assert_inert(what: &str, out: &str) {
    assert!(
        !out.chars().any(text::is_unsafe),
        "{what} writes a raw unsafe character: {out:?}"
    );
}

#[test]
fn tail_list_artifacts_and_the_jsonl_export_escape_the_same_set() {
    let frame =
        json!({"type": "agent.message", "seq": 1, "payload": {"text": HOSTILE}}).to_string();
    let tail = crate::export::frame_line::one_line(&frame);
    assert_inert("tail", &tail);
    let back: Value = serde_json::from_str(&tail).unwrap();
    assert_eq!(
        back["payload"]["text"], HOSTILE,
        "tail keeps the JSON's meaning"
    );

    let session = serde_json::from_value(json!({
        "id": "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af", "status": "idle", "title": HOSTILE,
    }))
    .unwrap();
    let list = super::list::json_line(&session, &FirstMessages::default());
    assert_inert("list --json", &list);
    let back: Value = serde_json::from_str(&list).unwrap();
    assert!(back.to_string().contains("owned"), "{back}");

    let artifact = serde_json::from_value(json!({"id": "art_1", "path": HOSTILE})).unwrap();
    let artifacts = super::artifacts::json_line(&artifact);
    assert_inert("artifacts --json", &artifacts);
    let back: Value = serde_json::from_str(&artifacts).unwrap();
    assert_eq!(
        back["path"], HOSTILE,
        "artifacts --json keeps the JSON's meaning"
    );

    let export = crate::export::jsonl::envelope_line(&frame);
    assert_inert("the JSON-lines export", &export);
    assert!(serde_json::from_str::<Value>(&export).is_ok());
}
