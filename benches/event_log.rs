//! The local event log: what keeping it costs while events arrive, what it takes on disk,
//! and how fast a restart gets back to a full screen from it.
//!
//! * `append` — keeping one persisted envelope for the writer (the loop's whole share: its
//!   bytes, shared with the chunk they came in, pushed), per event;
//! * `append_and_write` — the same plus handing each 4,096-event batch to the writer thread
//!   and waiting, at the end, until it is framed (checksum and copy) and synced: the disk's
//!   share, off the loop;
//! * `restart_200k` — a restart of a 200,000-event session to its first full frame, as the
//!   app does it: open and recover the log (read, checksum every record), plan the window
//!   (`session::tail_replay`), apply the lasting events before it and every event of it in
//!   full (indexed for search as applied), draw one 160×48 frame. Budget: under 300 ms.
//!   `restart_200k_every_event` decodes and applies every event instead (no window);
//!   `recover_only_200k` is the first part alone (read and checksum);
//!   `index_before_window_200k` is what runs off the loop after the first frame: the search
//!   index of the records before the window (`search::backfill`).
//!
//! Bytes on disk per event are printed. Run:
//! `cargo bench --bench event_log -- --warm-up-time 1 --measurement-time 3`

#[path = "support/workload.rs"]
mod workload;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use gobare_api::model::Event;
use gobare_tui::search::SearchIndex;
use gobare_tui::search::backfill::index_before_window;
use gobare_tui::search::index::DEFAULT_MAX_BYTES;
use gobare_tui::session::tail_replay::{Step, TailReplay};
use gobare_tui::session::{Session, Update};
use gobare_tui::store::event_log::{self, EventLogFiles};
use gobare_tui::store::event_log_writer::EventLogAppender;
use gobare_tui::ui::Screen;
use gobare_tui::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;
use workload::Workload;

const APPEND_EVENTS: usize = 50_000;
const RESTART_EVENTS: usize = 200_000;
/// Events handed to the writer at once (the app hands over once per applied batch).
const BATCH: usize = 4_096;

/// A fresh log in `dir` holding `data` (seq 1..), written as the app writes it.
fn write_event_log(dir: &std::path::Path, data: &[String], max_bytes: u64) -> EventLogFiles {
    let files = EventLogFiles::in_dir(dir, "bench");
    let recovered = event_log::recover(&files, |_, _| {}).expect("recover");
    let mut appender =
        EventLogAppender::start(files.clone(), &recovered, max_bytes).expect("start");
    for (i, json) in data.iter().enumerate() {
        appender.append(i as u64 + 1, json.clone());
        if (i + 1) % BATCH == 0 {
            appender.hand_off();
        }
    }
    appender.close();
    files
}

/// The app's replay of a recovered log (`app::local_event_log`): the window's events indexed
/// for search as they are applied.
fn replay_planned(
    view: &mut Session,
    index: &mut SearchIndex,
    records: &[(u64, &[u8])],
    plan: &TailReplay,
) {
    for (i, &(seq, json)) in records.iter().enumerate() {
        if i == plan.window_start() && i > 0 {
            view.start_window(plan.window_first_id());
        }
        let decode = || Event::parse(&String::from_utf8_lossy(json)).expect("decodes");
        match plan.step(i) {
            Step::Full => {
                let event = decode();
                index.push(seq, &event, None);
                view.apply(Update::Event(event));
            }
            Step::Lasting => view.apply_before_window(&decode()),
            Step::PassOver => view.pass_before_window(seq),
        }
    }
}

fn draw(view: &Session) {
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut screen = Screen::new();
    let theme = Theme::default();
    terminal
        .draw(|f| screen.draw(f, view, &theme, None))
        .expect("draw");
}

fn bench(c: &mut Criterion) {
    let data = Workload::persisted(RESTART_EVENTS);
    let json_bytes: usize = data[..APPEND_EVENTS].iter().map(String::len).sum();

    let mut g = c.benchmark_group("event_log");
    g.sample_size(10);
    g.throughput(Throughput::Elements(APPEND_EVENTS as u64));
    g.bench_function("append", |b| {
        // As the stream hands them over: slices of the chunks they came in.
        let shared: Vec<bytes::Bytes> = data[..APPEND_EVENTS]
            .iter()
            .map(|json| bytes::Bytes::from(json.clone()))
            .collect();
        let dir = tempfile::tempdir().expect("tempdir");
        let files = EventLogFiles::in_dir(dir.path(), "append");
        let recovered = event_log::recover(&files, |_, _| {}).expect("recover");
        b.iter_batched(
            || EventLogAppender::start(files.clone(), &recovered, u64::MAX).expect("start"),
            |mut appender| {
                for (i, json) in shared.iter().enumerate() {
                    appender.append(i as u64 + 1, json.clone());
                }
                appender
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("append_and_write", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("tempdir"),
            |dir| {
                write_event_log(dir.path(), &data[..APPEND_EVENTS], u64::MAX);
                dir
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let dir = tempfile::tempdir().expect("tempdir");
    let files = write_event_log(dir.path(), &data[..APPEND_EVENTS], u64::MAX);
    let on_disk = files.size_on_disk();
    println!(
        "on disk: {APPEND_EVENTS} events, {json_bytes} bytes of JSON, {on_disk} bytes of log: \
         {:.1} bytes per event ({:.1} of them framing)",
        on_disk as f64 / APPEND_EVENTS as f64,
        (on_disk as usize - json_bytes) as f64 / APPEND_EVENTS as f64,
    );

    // Every event kept (the default 64 MiB keeps fewer of this workload; printed below).
    let restart_dir = tempfile::tempdir().expect("tempdir");
    let files = write_event_log(restart_dir.path(), &data, u64::MAX);
    let default_dir = tempfile::tempdir().expect("tempdir");
    let bounded = write_event_log(default_dir.path(), &data, event_log::DEFAULT_MAX_BYTES);
    let kept = event_log::recover(&bounded, |_, _| {})
        .expect("recover")
        .records;
    println!(
        "restart log: {RESTART_EVENTS} events, {} bytes; with the default {} MiB limit {} bytes \
         keep the newest {kept}",
        files.size_on_disk(),
        event_log::DEFAULT_MAX_BYTES >> 20,
        bounded.size_on_disk(),
    );

    {
        let loaded = event_log::load(&files).expect("load");
        let records: Vec<(u64, &[u8])> = loaded.records().collect();
        let plan = TailReplay::plan(&records);
        let lasting = (0..plan.window_start())
            .filter(|&i| plan.step(i) == Step::Lasting)
            .count();
        let mut view = Session::new("s");
        replay_planned(&mut view, &mut SearchIndex::default(), &records, &plan);
        println!(
            "restart window: starts at record {} of {} ({lasting} lasting events decoded before \
             it); the restart's transcript holds {} entries",
            plan.window_start(),
            records.len(),
            view.transcript().entries().len(),
        );
    }

    let mut g = c.benchmark_group("event_log_restart");
    g.sample_size(10);
    g.throughput(Throughput::Elements(RESTART_EVENTS as u64));
    g.bench_function("recover_only_200k", |b| {
        b.iter(|| {
            event_log::recover(&files, |_, json| {
                black_box(json);
            })
            .expect("recover")
        })
    });
    g.bench_function("restart_200k", |b| {
        b.iter(|| {
            let mut view = Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
            let mut index = SearchIndex::default();
            let loaded = event_log::load(&files).expect("load");
            let records: Vec<(u64, &[u8])> = loaded.records().collect();
            let plan = TailReplay::plan(&records);
            replay_planned(&mut view, &mut index, &records, &plan);
            draw(&view);
            black_box((view, index))
        })
    });
    g.bench_function("index_before_window_200k", |b| {
        let loaded = event_log::load(&files).expect("load");
        let records: Vec<(u64, &[u8])> = loaded.records().collect();
        let plan = TailReplay::plan(&records);
        b.iter(|| {
            black_box(index_before_window(
                records[..plan.window_start()].iter().copied(),
                plan.window_first_id(),
                DEFAULT_MAX_BYTES,
            ))
        })
    });
    g.bench_function("restart_200k_every_event", |b| {
        b.iter(|| {
            let mut view = Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
            event_log::recover(&files, |_, json| {
                let event = Event::parse(&String::from_utf8_lossy(json)).expect("decodes");
                view.apply(Update::Event(event));
            })
            .expect("recover");
            draw(&view);
            black_box(view)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
