//! "While you were away" from the local event log: the digest of a 200,000-event absence, as
//! `report` and the bench of the app's restart compute it — the log read and checksummed,
//! every record's type looked at, the few types a digest reads decoded (turns, decisions,
//! artifacts, the workspace, errors). Budget: under 200 ms.
//!
//! Run: `cargo bench --bench away_digest -- --warm-up-time 1 --measurement-time 3`

#[path = "support/workload.rs"]
mod workload;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gobare_tui::away::builder::Window;
use gobare_tui::away::from_event_log::digest_builder_from_event_log;
use gobare_tui::store::event_log::{self, EventLogFiles};
use gobare_tui::store::event_log_writer::EventLogAppender;
use std::hint::black_box;
use workload::Workload;

const EVENTS: usize = 200_000;
/// The log holds the whole absence (the default limit would rotate part of it away).
const MAX_BYTES: u64 = 1 << 30;

fn write_event_log(dir: &std::path::Path, data: &[String]) -> EventLogFiles {
    let files = EventLogFiles::in_dir(dir, "bench").limited(MAX_BYTES);
    let recovered = event_log::recover(&files, |_, _| {}).expect("recover");
    let mut appender =
        EventLogAppender::start(files.clone(), &recovered, MAX_BYTES).expect("start");
    for (i, json) in data.iter().enumerate() {
        appender.append(i as u64 + 1, json.clone());
        if (i + 1) % 4096 == 0 {
            appender.hand_off();
        }
    }
    appender.close();
    files
}

fn digest(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = Workload::persisted(EVENTS);
    let files = write_event_log(dir.path(), &data);
    let bytes = files.size_on_disk();
    let window = Window {
        after_seq: Some(0),
        from_ms: None,
    };
    let built = digest_builder_from_event_log(&files, "s", window, 1).expect("read");
    let d = built.digest(i64::MAX / 2);
    assert_eq!(built.events(), EVENTS as u64, "the whole absence");
    println!(
        "away_digest: {EVENTS} events, {} MiB on disk; {} turns ended, {} artifacts, \
         {} decisions waiting",
        bytes >> 20,
        d.turns_unread + d.turns_completed + d.turns_failed + d.turns_cancelled,
        d.artifacts_added,
        d.decisions_waiting,
    );
    let mut g = c.benchmark_group("away");
    g.sample_size(10);
    g.throughput(Throughput::Elements(EVENTS as u64));
    g.bench_function("digest_200k_from_log", |b| {
        b.iter(|| {
            let built = digest_builder_from_event_log(&files, "s", window, 1).expect("read");
            black_box(built.digest(i64::MAX / 2))
        })
    });
    g.finish();
}

criterion_group!(benches, digest);
criterion_main!(benches);
