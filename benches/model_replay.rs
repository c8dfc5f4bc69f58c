//! Replaying 50,000 persisted events into the model (`Session::apply`), as `attach`
//! does when it resumes a long session from `last_event_id=0`. Budget: under 100 ms.
//!
//! * `decode` — `Event::parse` of every `data:` JSON only;
//! * `apply` — already decoded events into a fresh `Session`;
//! * `decode_and_apply` — both, which is what catching up costs.
//!
//! Run: `cargo bench --bench model_replay -- --warm-up-time 1 --measurement-time 3`

#[path = "support/workload.rs"]
mod workload;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use gobare_api::model::Event;
use gobare_tui::session::{Session, Update};
use std::hint::black_box;
use workload::Workload;

const EVENTS: usize = 50_000;

fn replay(events: Vec<Update>) -> Session {
    let mut view = Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
    for u in events {
        view.apply(u);
    }
    view
}

fn bench(c: &mut Criterion) {
    let data = Workload::persisted(EVENTS);
    let events: Vec<Event> = data
        .iter()
        .map(|s| Event::parse(s).expect("decodes"))
        .collect();
    let bytes: usize = data.iter().map(String::len).sum();
    let view = replay(events.iter().cloned().map(Update::Event).collect());
    println!(
        "workload: {EVENTS} persisted events, {bytes} bytes of JSON, {} transcript entries",
        view.transcript().entries().len()
    );

    let mut g = c.benchmark_group("model_replay_50k");
    g.sample_size(10);
    g.throughput(Throughput::Elements(EVENTS as u64));
    g.bench_function("decode", |b| {
        b.iter_batched(
            || (),
            |()| {
                data.iter()
                    .map(|s| Event::parse(s).expect("decodes"))
                    .collect::<Vec<_>>()
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("apply", |b| {
        b.iter_batched(
            || {
                events
                    .iter()
                    .cloned()
                    .map(Update::Event)
                    .collect::<Vec<_>>()
            },
            replay,
            BatchSize::PerIteration,
        )
    });
    g.bench_function("decode_and_apply", |b| {
        b.iter_batched(
            || (),
            |()| {
                let mut view = Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
                for s in &data {
                    view.apply(Update::Event(Event::parse(black_box(s)).expect("decodes")));
                }
                view
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
