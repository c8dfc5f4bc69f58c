//! Our SSE parser vs `eventsource-stream` on a realistic stream built from
//! `assets/event-payloads.json`: every persisted example, ~70% `agent.text`/`agent.thinking`
//! deltas, a ping now and then; several MB, fed in 4 KiB chunks to both.
//!
//! Run: `cargo bench --bench sse_parse -- --warm-up-time 1 --measurement-time 3`

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use gobare_api::sse::{SseItem, SseParser};
use serde_json::Value;
use std::convert::Infallible;
use std::hint::black_box;

const TARGET_BYTES: usize = 4 << 20;
const CHUNK: usize = 4096;

/// Returns the stream bytes and how many frames carry data.
fn build_stream() -> (Vec<u8>, usize) {
    let all: Value =
        serde_json::from_str(include_str!("../../../assets/event-payloads.json")).expect("assets");
    let persisted: Vec<Value> = all
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v["object"] == "event" && v["seq"].is_u64())
        .map(|(_, v)| v.clone())
        .collect();
    let words = [
        "Looking at",
        " the export",
        " handler;",
        " the error rate",
        " started at 09:12",
        " after the deploy",
        " of v2.3.2 — ",
        "checking the diff",
        " in `src/export.rs`",
        ".\n",
    ];
    let mut out = String::with_capacity(TARGET_BYTES + 4096);
    let (mut seq, mut frames, mut i) = (10_000u64, 0usize, 0usize);
    out.push_str("retry: 2000\n\n");
    while out.len() < TARGET_BYTES {
        i += 1;
        if i % 50 == 0 {
            out.push_str(": ping\n\n");
            continue;
        }
        if i % 10 < 7 {
            let kind = if i % 3 == 0 {
                "agent.thinking"
            } else {
                "agent.text"
            };
            let delta = words[i % words.len()];
            let env = serde_json::json!({
                "object": "event", "type": kind, "internal_type": kind,
                "session_id": "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af", "seq": null,
                "created_at": 1789319090000u64 + i as u64, "payload": {"delta": delta},
            });
            out.push_str(&format!("event: {kind}\ndata: {env}\n\n"));
        } else {
            let mut env = persisted[i % persisted.len()].clone();
            seq += 1;
            env["seq"] = seq.into();
            let kind = env["type"].as_str().unwrap().to_string();
            out.push_str(&format!("id: {seq}\nevent: {kind}\ndata: {env}\n\n"));
        }
        frames += 1;
    }
    (out.into_bytes(), frames)
}

fn ours(chunks: &[Bytes]) -> usize {
    let mut parser = SseParser::new(16 << 20);
    let mut items = Vec::with_capacity(64);
    let mut frames = 0;
    for c in chunks {
        parser.feed(c, &mut items);
        for item in items.drain(..) {
            if let SseItem::Frame(f) = item {
                black_box(&f);
                frames += 1;
            }
        }
    }
    frames
}

async fn theirs(chunks: &[Bytes]) -> usize {
    let body = futures_util::stream::iter(chunks.iter().cloned().map(Ok::<_, Infallible>));
    let mut events = body.eventsource();
    let mut frames = 0;
    while let Some(ev) = events.next().await {
        black_box(&ev.expect("parse"));
        frames += 1;
    }
    frames
}

fn bench(c: &mut Criterion) {
    let (bytes, frames) = build_stream();
    let chunks: Vec<Bytes> = bytes.chunks(CHUNK).map(Bytes::copy_from_slice).collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    assert_eq!(ours(&chunks), frames);
    assert_eq!(rt.block_on(theirs(&chunks)), frames);
    println!(
        "stream: {} bytes, {frames} data frames ({:.0} bytes/frame)",
        bytes.len(),
        bytes.len() as f64 / frames as f64
    );

    let mut g = c.benchmark_group("sse_parse");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("gobare_sse", |b| b.iter(|| ours(black_box(&chunks))));
    g.bench_function("eventsource_stream", |b| {
        b.iter(|| rt.block_on(theirs(black_box(&chunks))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
