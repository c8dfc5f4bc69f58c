//! The receiving path per frame, without the network: a 50,000-event replay fed to the
//! stream task from memory in 64 KiB chunks (a buffered server's write size), drained by a
//! consumer on the same current-thread runtime, as `tail` and `export` run it.
//!
//! * `tail` — [`StreamProfile::PRINTED`]: frames not decoded, data kept, no `created_at`
//!   read, a chunk's frames taken as one run ([`StreamUpdate::Run`]);
//! * `export` — [`StreamProfile::RECORDED`]: as `tail`, with `created_at` read, a run's
//!   frames handed over one by one, as the export takes them;
//! * `session` — [`StreamProfile::applied_by_consumer`]: runs, each frame decoded by the
//!   consumer, its data dropped;
//! * `fleet` — [`StreamProfile::EVENTS_ONLY`]: every frame decoded on the stream's thread,
//!   its data dropped;
//! * `follow` — [`StreamProfile::EVENTS`]: decoded, data kept.
//!
//! For each it prints the time per frame and the heap allocations per frame (a counting
//! global allocator, the bench's setup excluded). Instructions per frame are load-independent
//! with cachegrind; the bench takes the passes to run from `STREAM_FRAMES_PASSES` (default 20),
//! so two runs under cachegrind, 1 and 3 passes, give the cost of two passes by difference:
//!
//! ```sh
//! cargo bench -p gobare-api --bench stream_frames
//! STREAM_FRAMES_PASSES=1 valgrind --tool=cachegrind --cache-sim=no target/release/deps/stream_frames-*
//! STREAM_FRAMES_PASSES=3 valgrind --tool=cachegrind --cache-sim=no target/release/deps/stream_frames-*
//! ```
//! (each pass runs every mode; set `STREAM_FRAMES_MODE` to one mode's name to
//! run one, then divide the difference by 2 × 50,000).

#[path = "../../../benches/support/workload.rs"]
#[allow(dead_code)]
mod workload;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::{StreamExt, stream};
use gobare_api::stream::transport::{ByteStream, OpenError, Transport};
use gobare_api::stream::{
    StreamOptions, StreamProfile, StreamTarget, StreamUpdate, spawn_with_transport,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use workload::Workload;

const EVENTS: usize = 50_000;
const CHUNK: usize = 64 << 10;
const SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

/// Counts allocations (reallocations included: each may move the block).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed to `System` unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The replay as the server writes it, then one live delta (which ends the read).
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

fn options(profile: StreamProfile) -> StreamOptions {
    StreamOptions {
        target: StreamTarget::Session(SESSION.into()),
        from: Some(0),
        profile,
        ..StreamOptions::default()
    }
}

/// Reads the stream until its first live frame; returns the persisted frames seen.
async fn drain(options: StreamOptions, chunks: &[Bytes]) -> usize {
    // `tail` takes runs whole; the export (`created_at` read) takes their frames one by one.
    let whole_runs = !options.profile.reads_created_at();
    let mut handle = spawn_with_transport(options, Replay(chunks.to_vec()));
    let mut frames = 0;
    while let Some(update) = handle.updates.recv().await {
        match update {
            StreamUpdate::Run(run) if whole_runs => {
                frames += run.len();
                black_box(&run);
            }
            StreamUpdate::Run(run) => {
                for frame in run.into_frames() {
                    frames += 1;
                    black_box(&frame);
                }
            }
            StreamUpdate::Frame(frame) if frame.id.is_none() => break,
            StreamUpdate::Frame(frame) => {
                frames += 1;
                black_box(&frame);
            }
            _ => {}
        }
    }
    frames
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let passes: usize = std::env::var("STREAM_FRAMES_PASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mode = std::env::var("STREAM_FRAMES_MODE").unwrap_or_default();
    let data = Workload::persisted(EVENTS);
    let bytes: usize = data.iter().map(String::len).sum();
    let chunks = replay_chunks(&data);
    println!(
        "workload: {EVENTS} persisted events, {bytes} bytes of JSON, {} chunks of 64 KiB; {passes} passes",
        chunks.len()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let modes = [
        ("tail", StreamProfile::PRINTED),
        ("export", StreamProfile::RECORDED),
        ("session", StreamProfile::applied_by_consumer(false)),
        ("fleet", StreamProfile::EVENTS_ONLY),
        ("follow", StreamProfile::EVENTS),
    ];
    for (name, profile) in modes {
        if !mode.is_empty() && mode != name {
            continue;
        }
        let mut best = f64::MAX;
        let mut allocations = u64::MAX;
        for _ in 0..passes {
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let started = Instant::now();
            let frames = rt.block_on(drain(options(profile), &chunks));
            let secs = started.elapsed().as_secs_f64();
            assert_eq!(frames, EVENTS);
            best = best.min(secs);
            allocations = allocations.min(ALLOCATIONS.load(Ordering::Relaxed) - before);
        }
        println!(
            "stream_frames/{name}: {:.1} ns per frame (best of {passes}), {:.2} allocations per frame",
            best * 1e9 / EVENTS as f64,
            allocations as f64 / EVENTS as f64
        );
    }
}
