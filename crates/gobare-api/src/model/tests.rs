use super::lenient::rfc3339_ms;
use super::*;
use serde_json::{Value, json};
use std::borrow::Cow;

#[test]
fn published_event_types_are_borrowed_and_others_kept_as_sent() {
    for kind in EVENT_TYPES {
        assert!(matches!(event_type(kind.to_string()), Cow::Borrowed(k) if k == *kind));
        let json = format!(r#"{{"type":"{kind}","internal_type":"{kind}","payload":{{}}}}"#);
        let event = Event::parse(&json).unwrap();
        assert!(matches!(event.kind, Cow::Borrowed(_)), "{kind}");
        assert!(
            matches!(event.internal_type, Some(Cow::Borrowed(_))),
            "{kind}"
        );
    }
    assert!(matches!(event_type(String::from("x.new")), Cow::Owned(k) if k == "x.new"));
    let event = Event::parse(r#"{"type":"x.new","payload":{"a":1}}"#).unwrap();
    assert_eq!(event.kind, "x.new");
}

#[test]
fn rfc3339_dates_read_as_unix_ms() {
    assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        rfc3339_ms("2026-09-13T17:04:50.002Z"),
        Some(1_789_319_090_002)
    );
    assert_eq!(
        rfc3339_ms("2026-09-13T19:04:50.0021+02:00"),
        Some(1_789_319_090_002)
    );
    assert_eq!(
        rfc3339_ms("2000-02-29T12:00:00-01:30"),
        Some(951_825_600_000 + 5_400_000)
    );
    for bad in [
        "",
        "yesterday",
        "2026-13-01T00:00:00Z",
        "2026-01-01T00:00:00+0x:00",
    ] {
        assert_eq!(rfc3339_ms(bad), None, "{bad}");
    }
}

#[test]
fn question_options_are_labels_whether_strings_or_objects() {
    let asked = |options: Value| {
        serde_json::from_value::<Question>(serde_json::json!({
            "toolCallId": "call_1", "question": "Which?", "options": options
        }))
        .unwrap()
        .options
    };
    let want = vec!["roll back".to_string(), "patch".to_string()];
    assert_eq!(asked(serde_json::json!(["roll back", "patch"])), want);
    assert_eq!(
        asked(
            serde_json::json!([{"label": "roll back", "description": "safe"}, {"label": "patch"}])
        ),
        want
    );
    assert_eq!(
        asked(serde_json::json!([{"label": "roll back"}, 7, "patch"])),
        want
    );
    assert!(asked(Value::Null).is_empty());
}

#[test]
fn no_longer_pending_is_a_known_outcome() {
    assert_eq!(
        InputOutcome::from("no_longer_pending"),
        InputOutcome::NoLongerPending
    );
}

fn payloads() -> Value {
    serde_json::from_str(include_str!("../../../../assets/event-payloads.json")).unwrap()
}

#[test]
fn every_example_event_decodes_to_its_typed_variant() {
    let all = payloads();
    for kind in EVENT_TYPES {
        let env = &all[*kind];
        let ev = Event::parse(&env.to_string()).unwrap();
        assert_eq!(ev.kind, *kind);
        assert!(
            !matches!(ev.payload, EventPayload::Unknown { .. }),
            "{kind} fell back to Unknown"
        );
        // Round trip: the typed payload serializes back to the example.
        assert_eq!(ev.payload.to_value(), env["payload"], "{kind}");
    }
    assert_eq!(EVENT_TYPES.len(), 29);
}

#[test]
fn truncation_reads_from_seq_from_top_level_or_payload() {
    let top = r#"{"object":"event","type":"gobare.replay_truncated","seq":null,"from_seq":91204,"note":"n"}"#;
    let inner = r#"{"object":"event","type":"gobare.replay_truncated","seq":null,"payload":{"from_seq":7}}"#;
    for (data, want) in [(top, 91204), (inner, 7)] {
        match Event::parse(data).unwrap().payload {
            EventPayload::ReplayTruncated(t) => assert_eq!(t.from_seq, Some(want)),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn both_spellings_of_file_change_kind_are_accepted() {
    let old = r#"{"type":"file.changed","seq":1,"payload":{"path":"a","kind":"created"}}"#;
    let new = r#"{"type":"file.changed","seq":2,"payload":{"path":"a","changeType":"deleted","toolCallId":"c"}}"#;
    let EventPayload::FileChanged(a) = Event::parse(old).unwrap().payload else {
        panic!()
    };
    let EventPayload::FileChanged(b) = Event::parse(new).unwrap().payload else {
        panic!()
    };
    assert_eq!(a.change_type, ChangeKind::Created);
    assert_eq!(b.change_type, ChangeKind::Deleted);
    assert_eq!(b.tool_call_id.as_deref(), Some("c"));
}

#[test]
fn unknown_types_and_misfit_payloads_keep_raw_json() {
    let ev = Event::parse(r#"{"type":"agent.dance","seq":5,"payload":{"x":1}}"#).unwrap();
    assert_eq!(
        ev.payload,
        EventPayload::Unknown {
            kind: "agent.dance".into(),
            raw: serde_json::json!({"x":1})
        }
    );
    let ev = Event::parse(r#"{"type":"agent.message","seq":5,"payload":{"text":42}}"#).unwrap();
    assert!(matches!(ev.payload, EventPayload::Unknown { .. }));
}

#[test]
fn seq_tolerates_strings_and_garbage() {
    assert_eq!(
        Event::parse(r#"{"type":"x","seq":"12"}"#).unwrap().seq,
        Some(12)
    );
    assert_eq!(Event::parse(r#"{"type":"x","seq":-3}"#).unwrap().seq, None);
    assert_eq!(
        Event::parse(r#"{"type":"x","seq":{"a":1}}"#).unwrap().seq,
        None
    );
    assert!(Event::parse("not json").is_err());
    assert!(Event::parse(r#"{"seq":1}"#).is_err());
}

#[test]
fn an_unreadable_deadline_is_unknown_and_the_action_still_reads() {
    let all = payloads();
    let read = |expires: Value| {
        let mut action = all["required_action"].clone();
        action["expires_at"] = expires;
        serde_json::from_value::<RequiredAction>(action).map(|a| a.expires_at)
    };
    assert_eq!(
        read(json!(1_789_319_093_000_i64)).unwrap(),
        Some(1_789_319_093_000)
    );
    assert_eq!(read(json!(1.5e12)).unwrap(), Some(1_500_000_000_000));
    for odd in [
        json!("tomorrow"),
        json!(1.5),
        json!(1e300),
        json!({"at": 1}),
        Value::Null,
    ] {
        assert_eq!(read(odd.clone()).unwrap(), None, "{odd}");
    }
    // And a session holding such an action is read whole, its decision still listed.
    let mut session = all["session"].clone();
    let mut action = all["required_action"].clone();
    action["expires_at"] = json!("tomorrow");
    session["required_actions"] = json!([action]);
    let s: Session = serde_json::from_value(session).unwrap();
    assert_eq!(s.required_actions.len(), 1);
    assert_eq!(s.required_actions[0].expires_at, None);
}

#[test]
fn objects_parse_from_the_examples_and_tolerate_unknowns() {
    let all = payloads();
    let s: Session = serde_json::from_value(all["session"].clone()).unwrap();
    assert_eq!(s.environment.state, Some(WorkspaceState::Unknown));
    let t: Turn = serde_json::from_value(all["turn"].clone()).unwrap();
    assert_eq!(t.status, TurnStatus::Working);
    let r: RequiredAction = serde_json::from_value(all["required_action"].clone()).unwrap();
    assert_eq!(r.kind, RequiredActionKind::FunctionCall);
    let e: ErrorEnvelope = serde_json::from_value(all["error"].clone()).unwrap();
    assert_eq!(e.error.code, ErrorCode::PermissionDenied);
    for (_, item) in all["items"].as_object().unwrap() {
        let i: Item = serde_json::from_value(item.clone()).unwrap();
        assert!(i.detail_event().is_some());
    }
    let mut odd = all["session"].clone();
    odd["status"] = "hibernating".into();
    odd["environment"]["state"] = Value::Null;
    odd["brand_new_field"] = 1.into();
    let s: Session = serde_json::from_value(odd).unwrap();
    assert_eq!(s.status, SessionStatus::Other("hibernating".into()));
    assert_eq!(s.environment.state, None);
}

#[test]
fn inputs_serialize_to_the_wire_shapes() {
    let m = Input::Message {
        content: "hi".into(),
    };
    assert_eq!(
        serde_json::to_value(&m).unwrap(),
        serde_json::json!({"type":"input.message","content":"hi"})
    );
    let c = Input::Cancel {};
    assert_eq!(
        serde_json::to_value(&c).unwrap(),
        serde_json::json!({"type":"input.cancel"})
    );
    let r = Input::ToolResult {
        turn_id: "t".into(),
        call_id: "c".into(),
        success: false,
        output: None,
        error: Some(Input::TOOL_FAILED.into()),
    };
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        serde_json::json!({"type":"input.tool_result","turn_id":"t","call_id":"c","success":false,"error":Input::TOOL_FAILED})
    );
}
