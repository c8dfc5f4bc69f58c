//! Drawing one 160×48 frame (every pane, the status bar and the input box) onto ratatui's
//! `TestBackend`, as the app does on each redraw, for transcripts of 1,000 / 10,000 /
//! 100,000 entries. Budget: median under 1 ms, and 100,000 entries within 1.5× of 1,000
//! (only what is visible is laid out). The line cache is warm: one frame is drawn before
//! measuring, as the app has always drawn the previous frame.
//!
//! * `redraw` — nothing changed (a clock tick, a keystroke elsewhere);
//! * `streaming` — one `agent.text` delta applied before each frame (every 300th frame a
//!   settled `agent.message` ends the stream, so the live text stays message-sized);
//! * `scrolled` — the view anchored 2,000 lines above the bottom while entries arrive
//!   ("N new below" shown).
//!
//! Run: `cargo bench --bench frame_render -- --warm-up-time 1 --measurement-time 3`

#[path = "support/workload.rs"]
mod workload;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gobare_api::model::Event;
use gobare_tui::session::{Session, Update};
use gobare_tui::ui::Screen;
use gobare_tui::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use workload::Workload;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const COLS: u16 = 160;
const ROWS: u16 = 48;

/// A view whose transcript holds `entries` entries (the workload applied until it does).
fn view_with(entries: usize, events: &[Event]) -> Session {
    // The default byte budget keeps ~78,000 entries of this workload: lift it, the point
    // is how the frame cost scales with the transcript's length.
    let mut view =
        Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af").with_transcript_budget(usize::MAX);
    for ev in events {
        if view.transcript().entries().len() >= entries {
            break;
        }
        view.apply(Update::Event(ev.clone()));
    }
    assert_eq!(
        view.transcript().entries().len(),
        entries,
        "workload too short"
    );
    view
}

/// The app's screen on a test terminal.
struct Bench {
    terminal: Terminal<TestBackend>,
    screen: Screen,
    theme: Theme,
}

impl Bench {
    fn new() -> Self {
        Bench {
            terminal: Terminal::new(TestBackend::new(COLS, ROWS)).expect("terminal"),
            screen: Screen::new(),
            theme: Theme::default(),
        }
    }

    fn draw(&mut self, view: &Session) {
        let Bench {
            terminal,
            screen,
            theme,
        } = self;
        terminal
            .draw(|f| screen.draw(f, view, theme, None))
            .expect("draw");
    }
}

fn delta(text: &str) -> Update {
    Update::Event(
        Event::parse(
            &json!({"object": "event", "type": "agent.text", "seq": null,
                    "created_at": 1_789_319_090_000u64, "payload": {"delta": text}})
            .to_string(),
        )
        .expect("delta"),
    )
}

fn settled(view: &Session) -> Update {
    let seq = view.last_seq().unwrap_or(0) + 1;
    let text = view
        .transcript()
        .streaming()
        .map_or(String::new(), |s| s.text.clone());
    Update::Event(
        Event::parse(
            &json!({"object": "event", "type": "agent.message", "seq": seq,
                    "created_at": 1_789_319_090_000u64, "payload": {"text": text}})
            .to_string(),
        )
        .expect("message"),
    )
}

fn bench(c: &mut Criterion) {
    // ~1.6 events per entry: enough for the largest size.
    let events = Workload::events(180_000);
    let words = [
        "Looking at",
        " the export",
        " handler;",
        " the **error rate**",
        " started at 09:12",
        " after the deploy",
        " of `v2.3.2` — ",
        "checking the diff",
        " in `src/export.rs`",
        ".\n\n",
    ];
    let mut g = c.benchmark_group("frame_160x48");
    for &n in &SIZES {
        let view = view_with(n, &events);
        let mut screen = Bench::new();
        screen.draw(&view);
        g.bench_with_input(BenchmarkId::new("redraw", n), &n, |b, _| {
            b.iter(|| screen.draw(&view))
        });

        let mut view = view_with(n, &events);
        let mut screen = Bench::new();
        screen.draw(&view);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("streaming", n), &n, |b, _| {
            b.iter(|| {
                i += 1;
                if i.is_multiple_of(300) {
                    let msg = settled(&view);
                    view.apply(msg);
                } else {
                    view.apply(delta(words[i % words.len()]));
                }
                screen.draw(&view)
            })
        });

        let mut view = view_with(n, &events);
        let mut screen = Bench::new();
        screen.draw(&view);
        screen.screen.scroll(None, -2_000);
        screen.draw(&view);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("scrolled", n), &n, |b, _| {
            b.iter(|| {
                i += 1;
                if i.is_multiple_of(10) {
                    view.apply(delta(words[i % words.len()]));
                }
                screen.draw(&view)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
