//! The decision inbox at 500 pending actions across 500 sessions (approvals with their
//! event and a workspace clock, questions with options, function calls with a timeout):
//! one 160×48 inbox frame — the items gathered, sorted by deadline and drawn — onto
//! ratatui's `TestBackend` (budget: median under 1 ms).
//!
//! * `frame/redraw` — nothing changed but the clock (a countdown's second): the items
//!   timed and sorted again, and drawn;
//! * `frame/after_event` — one org-stream event applied before each frame (a question
//!   asked or answered somewhere): that session's items gathered again, all timed,
//!   sorted and drawn;
//! * `items/sorted` — the items gathered from the fleet and sorted, without drawing.
//!
//! Run: `cargo bench --bench inbox -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use gobare_api::model::{Event, Session};
use gobare_tui::deadline::WORKSPACE_LIFETIME_MS;
use gobare_tui::fleet::inbox;
use gobare_tui::fleet::model::FleetModel;
use gobare_tui::ui::inbox::InboxView;
use gobare_tui::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

const ACTIONS: usize = 500;
const COLS: u16 = 160;
const ROWS: u16 = 48;
const NOW: i64 = 1_789_400_000_000;
const MIN: i64 = 60_000;

fn id(n: usize) -> String {
    format!("3f9c1b60-4e2a-4d18-9a77-{n:012}")
}

/// 500 sessions, each waiting on one action: a third function calls (listed, with
/// `expires_at`), a third questions (listed, options as labels), a third approvals (asked
/// on the stream after their workspace started, half sensitive).
fn fleet() -> FleetModel {
    let sessions: Vec<Session> = (0..ACTIONS)
        .map(|n| {
            let actions = match n % 3 {
                0 => json!([{"type": "function_call", "turn_id": format!("t{n}"),
                             "call_id": format!("f{n}"), "name": "lookup_order",
                             "arguments": {"order_id": format!("A-{n}"), "verbose": true},
                             "created_at": NOW - MIN, "expires_at": NOW + (n as i64) * 7_000}]),
                1 => json!([{"type": "question", "turn_id": format!("t{n}"),
                             "call_id": format!("q{n}"),
                             "name": "Roll back to the last release or patch forward?",
                             "arguments": {"options": [{"label": "roll back"}, {"label": "patch"}]},
                             "created_at": NOW - 2 * MIN}]),
                _ => json!([]),
            };
            serde_json::from_value(json!({
                "id": id(n),
                "title": (n % 2 == 0).then(|| format!("Nightly job {n}: rebuild the index")),
                "status": "requires_action",
                "created_at": NOW - 3_600_000,
                "updated_at": NOW - 3_600_000,
                "environment": {"state": "running"},
                "required_actions": actions,
            }))
            .unwrap()
        })
        .collect();
    let mut model = FleetModel::new();
    model.apply_full_list(&sessions);
    let mut seq = 0;
    let mut event = |n: usize, at: i64, kind: &str, payload: serde_json::Value| {
        seq += 1;
        let event = Event::parse(
            &json!({"type": kind, "session_id": id(n), "seq": seq, "created_at": at,
                    "payload": payload})
            .to_string(),
        )
        .unwrap();
        model.apply_event(&event);
    };
    for n in 0..ACTIONS {
        event(
            n,
            NOW - (n as i64) * 10_000,
            "sandbox.created",
            json!({"state": "running"}),
        );
        if n % 3 == 2 {
            event(
                n,
                NOW - MIN,
                "approval.requested",
                json!({"toolCallId": format!("a{n}"), "name": "bash",
                       "args": {"command": format!("systemctl restart worker-{n}")},
                       "sensitive": n % 2 == 0}),
            );
        }
    }
    model
}

fn bench(c: &mut Criterion) {
    let theme = Theme::default();
    let model = fleet();
    assert_eq!(
        inbox::items(&model, WORKSPACE_LIFETIME_MS, NOW).len(),
        ACTIONS
    );
    let mut group = c.benchmark_group("inbox");
    let mut view = InboxView::new(WORKSPACE_LIFETIME_MS);
    let mut terminal = Terminal::new(TestBackend::new(COLS, ROWS)).unwrap();
    let mut now = NOW;
    group.bench_function("frame/redraw", |b| {
        b.iter(|| {
            now += 1_000;
            terminal
                .draw(|f| view.render(f.area(), f.buffer_mut(), &model, &theme, now))
                .unwrap();
        })
    });
    let mut changing = fleet();
    let mut n = 0usize;
    group.bench_function("frame/after_event", |b| {
        b.iter(|| {
            // Session 3k+1 waits on a question: a second one asked, then answered.
            n += 1;
            let session = (n % (ACTIONS / 3)) * 3 + 1;
            let (kind, payload) = if n.is_multiple_of(2) {
                (
                    "question.asked",
                    json!({"toolCallId": format!("x{session}"),
                                           "question": "And then?", "options": ["a", "b"]}),
                )
            } else {
                (
                    "question.answered",
                    json!({"toolCallId": format!("x{session}"), "answer": "a"}),
                )
            };
            let event = Event::parse(
                &json!({"type": kind, "session_id": id(session), "seq": 10_000 + n,
                        "created_at": NOW, "payload": payload})
                .to_string(),
            )
            .unwrap();
            changing.apply_event(&event);
            terminal
                .draw(|f| view.render(f.area(), f.buffer_mut(), &changing, &theme, NOW))
                .unwrap();
        })
    });
    group.bench_function("items/sorted", |b| {
        b.iter(|| inbox::items(&model, WORKSPACE_LIFETIME_MS, NOW))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
