//! An export's CPU, without the network: a 50,000-event replay fed to the stream task from
//! memory in 64 KiB chunks (the simulator's write size), read to its end as `export` reads
//! it, on one thread as the CLI runs it.
//!
//! * `stream_decoded` — the stream task alone decoding every event (SSE, resume, decode,
//!   the queue), its frames dropped by the reader;
//! * `stream_undecoded` — the same as both exports open it (frames in runs, not decoded,
//!   the data kept: Markdown decodes each where it writes it);
//! * `markdown`, `jsonl` — the whole export into `io::sink()`, no turn's facts known (each
//!   closing line says its outcome is unknown);
//! * `markdown_facts_known` — the Markdown export given every turn's facts, as a session's
//!   lists read beside its history give them: each closing line written with its outcome.
//!
//! The end-to-end figure (a real socket, the simulator, a file) is
//! `perf_e2e::export_200k`. Run:
//! `cargo bench --bench export -- --warm-up-time 1 --measurement-time 3`

#[path = "support/workload.rs"]
mod workload;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::future::BoxFuture;
use futures_util::{StreamExt, stream};
use gobare_api::model::Turn;
use gobare_api::stream::transport::{ByteStream, OpenError, Transport};
use gobare_api::stream::{StreamOptions, StreamUpdate, spawn_with_transport};
use gobare_tui::export::facts_feed::TurnFactsFeed;
use gobare_tui::export::history::Ends;
use gobare_tui::export::run::{self, Format};
use std::hint::black_box;
use std::io::{Write, sink};
use workload::Workload;

const EVENTS: usize = 50_000;
const CHUNK: usize = 64 << 10;
const SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

/// The replay as the server writes it, then one live delta (which ends the history).
fn replay_chunks(data: &[String]) -> Vec<Bytes> {
    let mut body = Vec::new();
    for (i, json) in data.iter().enumerate() {
        body.extend_from_slice(format!("id: {}\ndata: {json}\n\n", i + 1).as_bytes());
    }
    body.extend_from_slice(
        format!(
            "data: {{\"type\":\"agent.text\",\"session_id\":\"{SESSION}\",\"payload\":{{\"delta\":\"x\"}}}}\n\n"
        )
        .as_bytes(),
    );
    body.chunks(CHUNK).map(Bytes::copy_from_slice).collect()
}

/// Serves the replay on the first open; later opens never answer.
struct Replay(Vec<Bytes>);

impl Transport for Replay {
    fn open(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        let chunks = self.0.clone();
        Box::pin(async move {
            if cursor != Some(0) {
                std::future::pending::<()>().await;
            }
            Ok(stream::iter(chunks.into_iter().map(Ok)).boxed())
        })
    }
}

fn options() -> StreamOptions {
    run::stream_options(StreamOptions::default(), SESSION)
}

/// The stream decoding every persisted event itself, frame by frame.
fn decoding() -> StreamOptions {
    let mut options = options();
    options.profile = gobare_api::stream::StreamProfile::EVENTS_ONLY;
    options
}

/// Reads the stream until its first live frame; returns the persisted frames seen.
async fn drain(options: StreamOptions, chunks: &[Bytes]) -> usize {
    let mut handle = spawn_with_transport(options, Replay(chunks.to_vec()));
    let mut frames = 0;
    while let Some(update) = handle.updates.recv().await {
        if let StreamUpdate::Frame(frame) = update {
            if frame.id.is_none() {
                break;
            }
            frames += 1;
            black_box(&frame);
        }
    }
    frames
}

/// Every turn of the replay, settled as the turn list reads it.
fn settled_turns(data: &[String]) -> Vec<Turn> {
    let turns = data.iter().filter(|d| d.contains("\"turn.ended\"")).count();
    (1..=turns as u64)
        .map(|t| {
            let turn = serde_json::json!({
                "id": format!("turn_{t:016x}"), "status": "completed", "created_at": t * 1_000,
                "started_at": t * 1_000, "completed_at": t * 1_000 + 42_000, "artifacts": "ready",
            });
            serde_json::from_value(turn).expect("a turn")
        })
        .collect()
}

async fn export<W: Write + Send + 'static>(
    format: Format,
    chunks: &[Bytes],
    turns: Option<&[Turn]>,
    out: W,
) -> (u64, W) {
    let mut handle = spawn_with_transport(options(), Replay(chunks.to_vec()));
    let ends = Ends::for_session(None);
    let warn = |w: &str| panic!("warning: {w}");
    let facts = match turns {
        Some(turns) => TurnFactsFeed::given(turns.to_vec(), Vec::new()),
        None => TurnFactsFeed::none(),
    };
    let about = run::About {
        session_id: SESSION,
        title: Some("bench"),
        facts,
    };
    let (read, out) = run::write(&mut handle.updates, ends, format, about, out, warn)
        .await
        .expect("export");
    (read.events, out)
}

fn bench(c: &mut Criterion) {
    let data = Workload::persisted(EVENTS);
    let bytes: usize = data.iter().map(String::len).sum();
    let chunks = replay_chunks(&data);
    let turns = settled_turns(&data);
    println!(
        "workload: {EVENTS} persisted events, {bytes} bytes of JSON, {} chunks of 64 KiB",
        chunks.len()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    assert_eq!(rt.block_on(drain(decoding(), &chunks)), EVENTS);
    let unknown = "ended (its outcome could not be read)";
    for (given, outcomes_known) in [(None, false), (Some(&turns[..]), true)] {
        let (events, doc) = rt.block_on(export(Format::Markdown, &chunks, given, Vec::new()));
        assert_eq!(events, EVENTS as u64);
        let doc = String::from_utf8(doc).expect("UTF-8");
        assert_eq!(!doc.contains(unknown), outcomes_known);
    }

    let mut g = c.benchmark_group("export_50k");
    g.sample_size(10);
    g.throughput(Throughput::Elements(EVENTS as u64));
    g.bench_function("stream_decoded", |b| {
        b.iter(|| rt.block_on(drain(decoding(), &chunks)))
    });
    g.bench_function("stream_undecoded", |b| {
        b.iter(|| rt.block_on(drain(options(), &chunks)))
    });
    g.bench_function("markdown", |b| {
        b.iter(|| rt.block_on(export(Format::Markdown, &chunks, None, sink())))
    });
    g.bench_function("markdown_facts_known", |b| {
        b.iter(|| rt.block_on(export(Format::Markdown, &chunks, Some(&turns), sink())))
    });
    g.bench_function("jsonl", |b| {
        b.iter(|| rt.block_on(export(Format::JsonLines, &chunks, None, sink())))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
