//! Search across a 200,000-event session (budgets: first match < 30 ms, all matches
//! < 200 ms), and what the index costs to keep.
//!
//! * `index_200k` — building the index from 200,000 decoded events, as the app does while
//!   they are applied (the loop's share per event is this divided by 200,000);
//! * `first_match_200k/recent` — a query whose newest match is recent: the time until the
//!   first batch of hits is ready (the newest chunk);
//! * `first_match_200k/oldest` — the worst case: the only match is the oldest event, so the
//!   first hit needs the whole index read;
//! * `all_matches_200k/common` — every hit of a word in every turn (tens of thousands);
//! * `all_matches_200k/absent` — a query that matches nothing (a full scan, no hits).
//!
//! The index's size (bytes, bytes per event) is printed. Run:
//! `cargo bench --bench search -- --warm-up-time 1 --measurement-time 3`

#[path = "support/workload.rs"]
mod workload;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use gobare_api::model::Event;
use gobare_tui::search::SearchIndex;
use std::hint::black_box;
use workload::Workload;

const EVENTS: usize = 200_000;

/// The oldest event: the one match of the `oldest` query.
fn oldest() -> Event {
    Event::parse(
        r#"{"type":"user.message","seq":1,"payload":{"text":"the unmistakable zebra-7 request"}}"#,
    )
    .expect("event")
}

fn build(events: &[Event]) -> SearchIndex {
    // Room for all 200,000: the default 16 MiB holds the newest ~165,000 of this workload,
    // and the bench measures a search across every one.
    let mut index = SearchIndex::with_max_bytes(32 << 20);
    index.push(1, &oldest(), Some(0));
    for (i, e) in events.iter().enumerate() {
        let seq = i as u64 + 2;
        // Two events per entry on average (a call and its result share one).
        index.push(seq, e, Some(seq / 2));
    }
    index
}

fn first_hit(index: &SearchIndex, query: &str) -> usize {
    let mut n = 0;
    index.snapshot().search(query, |hits| {
        n = hits.len();
        n == 0
    });
    n
}

fn all_hits(index: &SearchIndex, query: &str) -> usize {
    let mut n = 0;
    index.snapshot().search(query, |hits| {
        n += hits.len();
        true
    });
    n
}

fn bench(c: &mut Criterion) {
    let events = Workload::events(EVENTS);
    let index = build(&events);
    let bytes = index.bytes();
    println!(
        "search index: {} events indexed of {}, {:.1} MiB, {:.0} bytes/event; \
         hits: backoff {}, zebra-7 {}",
        index.records(),
        EVENTS + 1,
        bytes as f64 / (1 << 20) as f64,
        bytes as f64 / (EVENTS + 1) as f64,
        all_hits(&index, "backoff"),
        all_hits(&index, "zebra-7"),
    );
    assert_eq!(all_hits(&index, "zebra-7"), 1);

    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    g.bench_function("index_200k", |b| {
        b.iter_batched(
            || (),
            |()| black_box(build(&events)),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("first_match_200k/recent", |b| {
        b.iter(|| black_box(first_hit(&index, "Backoff")))
    });
    g.bench_function("first_match_200k/oldest", |b| {
        b.iter(|| black_box(first_hit(&index, "zebra-7")))
    });
    g.bench_function("all_matches_200k/common", |b| {
        b.iter(|| black_box(all_hits(&index, "backoff")))
    });
    g.bench_function("all_matches_200k/absent", |b| {
        b.iter(|| black_box(all_hits(&index, "no such text anywhere")))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
