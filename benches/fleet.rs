//! The fleet at 500 sessions: one 160×48 fleet frame drawn onto ratatui's `TestBackend`
//! (budget: median under 1 ms), and the model applying org-stream events (the app must
//! keep up with 5,000 a second with room to spare).
//!
//! * `frame/redraw` — nothing changed (a clock tick);
//! * `frame/after_event` — one event applied before each frame (the order is rebuilt);
//! * `apply/events` — a batch of 10,000 persisted events across the 500 sessions
//!   (turns, todos, approvals, queue, sandbox, artifacts), applied one by one.
//!
//! Run: `cargo bench --bench fleet -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gobare_api::model::{Event, Session};
use gobare_tui::fleet::model::FleetModel;
use gobare_tui::ui::fleet::FleetView;
use gobare_tui::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

const SESSIONS: usize = 500;
const COLS: u16 = 160;
const ROWS: u16 = 48;
const NOW: i64 = 1_789_400_000_000;

fn id(n: usize) -> String {
    format!("3f9c1b60-4e2a-4d18-9a77-{n:012}")
}

/// 500 sessions: crews of three every sixth session, a mix of statuses, half untitled.
fn sessions() -> Vec<Session> {
    (0..SESSIONS)
        .map(|n| {
            let status = [
                "working",
                "requires_action",
                "idle",
                "failed",
                "idle",
                "working",
            ][n % 6];
            let actions = if status == "requires_action" {
                json!([{"type": "approval", "turn_id": "t", "call_id": format!("c{n}")}])
            } else {
                json!([])
            };
            let parent = (n % 6 == 1 || n % 6 == 2).then(|| id(n - n % 6));
            serde_json::from_value(json!({
                "id": id(n),
                "title": (n % 2 == 0).then(|| format!("Nightly job {n}: rebuild the index")),
                "status": status,
                "created_at": NOW - 3_600_000,
                "updated_at": NOW - (n as i64) * 1_000,
                "parent_session_id": parent,
                "environment": {"state": "running"},
                "required_actions": actions,
            }))
            .unwrap()
        })
        .collect()
}

fn fleet() -> FleetModel {
    let mut model = FleetModel::new();
    model.apply_full_list(&sessions());
    for n in (1..SESSIONS).step_by(2) {
        model.set_first_message(&id(n), "Summarise the failures in last night's run");
    }
    model
}

/// `count` persisted events spread over the fleet, as a busy org stream carries them.
fn events(count: usize) -> Vec<Event> {
    (0..count)
        .map(|i| {
            let session = id(i * 7 % SESSIONS);
            let (kind, payload) = match i % 8 {
                0 => ("turn.started", json!({"turnId": format!("t{i}")})),
                1 => (
                    "agent.todos",
                    json!({"items": [{"label": "a", "status": "done"}, {"label": "b", "status": "pending"}]}),
                ),
                2 => ("agent.message", json!({"text": "done with the first step"})),
                3 => ("message.queued", json!({"text": "and then", "position": 1})),
                4 => (
                    "approval.requested",
                    json!({"toolCallId": format!("a{i}"), "name": "shell", "args": {}, "sensitive": false}),
                ),
                5 => ("approval.resolved", json!({"toolCallId": format!("a{}", i - 1), "approved": true})),
                6 => ("sandbox.resumed", json!({"state": "running"})),
                _ => ("turn.ended", json!({"turnId": format!("t{i}")})),
            };
            Event::parse(
                &json!({"type": kind, "session_id": session, "seq": i + 1,
                        "created_at": NOW + i as i64, "payload": payload})
                .to_string(),
            )
            .unwrap()
        })
        .collect()
}

fn frame(c: &mut Criterion) {
    let theme = Theme::default();
    let mut group = c.benchmark_group("fleet/frame");
    let model = fleet();
    let mut view = FleetView::new();
    let mut terminal = Terminal::new(TestBackend::new(COLS, ROWS)).unwrap();
    group.bench_function("redraw", |b| {
        b.iter(|| {
            terminal
                .draw(|f| view.render(f.area(), f.buffer_mut(), &model, &theme, NOW))
                .unwrap();
        })
    });
    let mut model = fleet();
    let stream = events(100_000);
    let mut next = stream.iter().cycle();
    group.bench_function("after_event", |b| {
        b.iter(|| {
            model.apply_event(next.next().unwrap());
            terminal
                .draw(|f| view.render(f.area(), f.buffer_mut(), &model, &theme, NOW))
                .unwrap();
        })
    });
    group.finish();
}

fn apply(c: &mut Criterion) {
    let stream = events(10_000);
    let mut group = c.benchmark_group("fleet/apply");
    group.throughput(Throughput::Elements(stream.len() as u64));
    group.bench_function("events", |b| {
        b.iter_batched(
            fleet,
            |mut model| {
                for event in &stream {
                    model.apply_event(event);
                }
                model
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, frame, apply);
criterion_main!(benches);
