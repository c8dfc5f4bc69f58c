//! Malformed frames over real HTTP (issue 6): bad JSON, missing fields, wrong types, `seq`
//! as a string, negative and huge numbers, invalid UTF-8, a 10 MB frame, a 200 KB
//! message, unknown event and item types. Nothing crashes; each is skipped (and counted
//! in the status bar) or shown generically; the stream goes on to deliver what follows.

use crate::support::faults::{Consumed, screen};
use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use bytes::Bytes;
use gobare_api::auth::Token;
use gobare_api::model::Item;
use gobare_api::stream::{StreamOptions, StreamTarget, spawn};
use gobare_tui::session::Update;
use gobare_tui::session::transcript::EntryKind;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn good(seq: u64) -> Vec<u8> {
    format!(
        "id: {seq}\nevent: agent.message\ndata: {{\"object\":\"event\",\"type\":\"agent.message\",\"session_id\":\"s1\",\"seq\":{seq},\"created_at\":1789319090764,\"payload\":{{\"text\":\"good {seq}\"}}}}\n\n"
    )
    .into_bytes()
}

fn frame(id: Option<&str>, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(id) = id {
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    out
}

/// One malformed frame after each good one; `good` seqs are 1, 3, 5, …
fn hostile_stream() -> (Vec<u8>, u64) {
    let big_text = "x".repeat(200 * 1024);
    let ten_mb = "y".repeat(10 << 20);
    let bad: Vec<Vec<u8>> = vec![
        frame(Some("2"), b"{not json"),
        frame(Some("4"), br#"{"object":"event"}"#),
        frame(Some("6"), br#"{"type":"agent.message","seq":6}"#),
        frame(Some("8"), br#"{"type":"agent.message","seq":8,"payload":{"text":42}}"#),
        frame(Some("10"), br#"{"type":123,"seq":10,"payload":[]}"#),
        frame(Some("12"), br#"{"type":"agent.message","seq":"12","payload":{"text":"seq as a string"}}"#),
        frame(Some("-14"), br#"{"type":"agent.message","seq":-14,"payload":{"text":"negative"}}"#),
        frame(Some("16"), br#"{"type":"agent.message","seq":16,"created_at":-99999999999999999999999,"payload":{"text":"huge"}}"#),
        frame(Some("99999999999999999999999"), br#"{"type":"agent.message","seq":1e400,"payload":{}}"#),
        frame(Some("20"), b"{\"type\":\"agent.message\",\"seq\":20,\"payload\":{\"text\":\"bad \xff\xfe utf8 \xc3\"}}"),
        frame(None, b"\xff\xfe\xfd"),
        frame(Some("24"), format!(r#"{{"type":"agent.message","seq":24,"payload":{{"text":"{big_text}"}}}}"#).as_bytes()),
        frame(Some("26"), format!(r#"{{"type":"agent.message","seq":26,"payload":{{"text":"{ten_mb}"}}}}"#).as_bytes()),
        frame(Some("28"), br#"{"object":"event","type":"hologram.projected","seq":28,"payload":{"beam":[1,2,{"x":null}]}}"#),
        frame(None, br#"{"type":"agent.text","seq":null,"payload":{"delta":{"nested":true}}}"#),
        frame(Some("32"), br#"[1,2,3]"#),
        frame(Some("34"), br#"null"#),
        frame(Some("36"), br#"{"type":"agent.tool_call","seq":36,"payload":{"toolCallId":7,"toolName":null,"args":"not an object"}}"#),
        frame(Some("38"), br#"{"type":"file.changed","seq":38,"payload":{"path":["a"],"changeType":"teleported","diff":12}}"#),
        // An `id:` on a delta: shown as a delta, never the cursor. (A truncation notice,
        // however malformed, ends the connection by design: `stream_hostile.rs`.)
        frame(Some("40"), br#"{"type":"agent.text","seq":40,"payload":{"delta":"not a cursor"}}"#),
    ];
    let mut body = b"retry: 1\n\n".to_vec();
    let mut seq = 1;
    for b in &bad {
        body.extend(good(seq));
        body.extend_from_slice(b);
        seq += 2;
    }
    body.extend(good(seq));
    (body, seq)
}

/// Serves `body` in uneven chunks on the first open; later opens stream nothing.
async fn server(body: Vec<u8>) -> (url::Url, Arc<AtomicUsize>) {
    let opens = Arc::new(AtomicUsize::new(0));
    let counter = opens.clone();
    let body = Arc::new(body);
    let app = Router::new().route(
        "/v1/sessions/{id}/events",
        get(move || {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            let body = body.clone();
            async move {
                let chunks: Vec<Result<Bytes, std::io::Error>> = if n == 0 {
                    let mut out = Vec::new();
                    let mut rest = &body[..];
                    let mut size = 3;
                    while !rest.is_empty() {
                        let k = size.min(rest.len());
                        out.push(Ok(Bytes::copy_from_slice(&rest[..k])));
                        rest = &rest[k..];
                        size = (size * 7 + 5) % 65_536 + 1;
                    }
                    out
                } else {
                    Vec::new()
                };
                let stream = futures_util::StreamExt::chain(
                    futures_util::stream::iter(chunks),
                    futures_util::stream::pending(),
                );
                (
                    [(header::CONTENT_TYPE, "text/event-stream")],
                    Body::from_stream(stream),
                )
                    .into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url::Url::parse(&format!("http://{addr}/")).unwrap(), opens)
}

#[tokio::test]
async fn malformed_frames_are_skipped_or_shown_and_the_stream_goes_on() {
    let (body, last_good) = hostile_stream();
    let (api, opens) = server(body).await;
    let mut handle = spawn(StreamOptions {
        api,
        token: Token::new("gbr_pat_malformed"),
        target: StreamTarget::Session("s1".into()),
        from: Some(0),
        ..StreamOptions::default()
    });
    let mut model = Consumed::new("s1");
    model
        .until_seq(&mut handle.updates, last_good, Duration::from_secs(60))
        .await;

    // Every good event arrived, once, in order, whatever came between them.
    let good_seqs: Vec<u64> = (1..=last_good).step_by(2).collect();
    for s in &good_seqs {
        assert!(model.applied.contains(s), "good event {s} was lost");
    }
    assert!(model.applied.windows(2).all(|w| w[0] < w[1]));
    // The undecodable ones are counted for the status bar...
    let skipped = model.view.skipped();
    assert!(skipped >= 6, "skipped {skipped}: {:?}", model.skipped);
    assert_eq!(skipped as usize, model.skipped.len(), "{:?}", model.skipped);
    // ...and shown there.
    let text = screen(&model.view, 140, 40);
    assert!(text.contains(&format!("{skipped} skipped")), "{text}");
    // The unknown type is shown generically.
    assert!(model.view.transcript().entries().iter().any(
        |e| matches!(&e.kind, EntryKind::Unknown { kind, .. } if kind == "hologram.projected")
    ));
    // One connection did it all: nothing malformed forced a reconnect.
    assert_eq!(opens.load(Ordering::SeqCst), 1);
}

#[test]
fn unknown_item_types_and_odd_fields_are_shown_generically() {
    let items: Vec<Item> = serde_json::from_value(serde_json::json!([
        {"object":"item","id":"i1","session_id":"s","type":"hologram","created_at":1,
         "role":"wizard","content":{"weird":true},"detail":{"event":"beam.me.up"}},
        {"object":"item","id":"i2","session_id":"s","type":"message","created_at":-5,
         "role":"assistant","content":"fine","detail":null},
        {"object":"item","id":"i3","session_id":"s","type":"tool_call","created_at":1,
         "detail":{"event":"agent.tool_call","toolName":[1],"args":"x"}}
    ]))
    .expect("unknown item types and values never fail a parse");
    let mut model = Consumed::new("s");
    model.view.apply(Update::Items(items));
    let text = screen(&model.view, 100, 30);
    assert!(text.contains("fine"), "{text}");
}
