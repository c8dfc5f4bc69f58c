//! Live heap held by the model and the transcript's line cache as a session grows, counted
//! by a global allocator wrapper (exact bytes requested, no allocator overhead or
//! fragmentation, unlike RSS). One line per checkpoint; the figure to watch is that the
//! heap stops growing once the transcript reaches its byte budget.
//!
//! Then the shape of `perf_e2e`'s `rss_200k_and_soak`, model only: 200,000 events of the
//! simulator's seeded mix, then 120,000 of the soak's mix, the heap every 8,000 events.
//!
//! Run: `cargo bench --bench model_memory`

#[path = "support/workload.rs"]
mod workload;

use gobare_api::model::Event;
use gobare_tui::session::{Session, Update};
use gobare_tui::ui::Screen;
use gobare_tui::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use workload::Workload;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const CHECKPOINTS: [usize; 7] = [1_000, 10_000, 50_000, 100_000, 200_000, 300_000, 400_000];
const BATCH: usize = 50_000;

fn main() {
    let mut view = Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut ui = Screen::new();
    let theme = Theme::default();
    let base = LIVE.load(Ordering::Relaxed);
    let mut applied = 0;
    let mut generator = Workload::new();
    for &at in &CHECKPOINTS {
        while applied < at {
            let n = (at - applied).min(BATCH);
            for ev in generator.next_events(n) {
                view.apply(Update::Event(ev));
                applied += 1;
                // Draw now and then so the line cache fills as it does on screen.
                if applied % 7 == 0 {
                    terminal
                        .draw(|f| ui.draw(f, &view, &theme, None))
                        .expect("draw");
                }
            }
        }
        let live = LIVE.load(Ordering::Relaxed) - base;
        println!(
            "model_memory: {at:>7} events: {:>6.1} MiB live heap, {:>6} transcript entries, {:>5} cached entry layouts",
            live as f64 / (1024.0 * 1024.0),
            view.transcript().entries().len(),
            ui.line_cache_len(),
        );
    }
    soak_shape();
}

fn event(seq: u64, kind: &str, payload: serde_json::Value) -> Update {
    let env = json!({"object": "event", "type": kind, "seq": seq, "created_at": 1_789_319_090_000u64 + seq, "payload": payload});
    Update::Event(Event::parse(&env.to_string()).expect("decodes"))
}

/// `sim::seed`'s turn of 8 events, then `perf_e2e`'s soak groups of 4.
fn soak_shape() {
    let mut view = Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
    let base = LIVE.load(Ordering::Relaxed);
    let mib = || (LIVE.load(Ordering::Relaxed) - base) as f64 / (1024.0 * 1024.0);
    let mut seq = 0u64;
    for i in 0..200_000u64 {
        seq += 1;
        let call = format!("call_{:08x}", i / 8);
        let u = match i % 8 {
            0 => event(
                seq,
                "turn.started",
                json!({"turnId": format!("turn_{:016x}", i / 8)}),
            ),
            1 => event(
                seq,
                "agent.todos",
                json!({"items": [{"label": "Read the module", "status": "done"}, {"label": "Apply the change", "status": "pending"}]}),
            ),
            2 => event(
                seq,
                "agent.tool_call",
                json!({"toolCallId": call, "toolName": "read", "args": {"path": format!("/workspace/src/module_{}.rs", i % 37)}}),
            ),
            3 => event(
                seq,
                "agent.tool_result",
                json!({"toolCallId": call, "toolName": "read", "isError": false, "cancelled": false, "summary": format!("Read {} lines", 40 + i % 200)}),
            ),
            4 => event(
                seq,
                "file.changed",
                json!({"path": format!("/workspace/src/module_{}.rs", i % 37), "changeType": "modified", "diff": format!("@@ -{0},3 +{0},3 @@\n-    let total = 0;\n+    let mut total = 0;\n", 1 + i % 90), "toolCallId": call}),
            ),
            5 => event(
                seq,
                "agent.message",
                json!({"text": format!("Updated step {i}; moving on.")}),
            ),
            6 => event(
                seq,
                "user.message",
                json!({"text": format!("Keep going ({i}).")}),
            ),
            _ => event(
                seq,
                "turn.ended",
                json!({"turnId": format!("turn_{:016x}", i / 8)}),
            ),
        };
        view.apply(u);
    }
    let mut series = vec![format!("{:.1}", mib())];
    for n in 1..=120_000u64 {
        seq += 1;
        let u = match n % 4 {
            0 => event(
                seq,
                "user.message",
                json!({"text": format!("soak message {n}")}),
            ),
            1 => event(
                seq,
                "agent.tool_call",
                json!({"toolCallId": format!("call_soak{n:08}"), "toolName": "read", "args": {"path": format!("/workspace/src/m{}.rs", n % 97)}}),
            ),
            2 => event(
                seq,
                "agent.tool_result",
                json!({"toolCallId": format!("call_soak{:08}", n - 1), "toolName": "read", "isError": false, "cancelled": false, "summary": format!("Read {} lines", n % 300)}),
            ),
            _ => event(
                seq,
                "agent.message",
                json!({"text": format!("Step {n} done; **moving on**.")}),
            ),
        };
        view.apply(u);
        if n % 8_000 == 0 {
            series.push(format!("{:.1}", mib()));
        }
    }
    println!(
        "model_memory: soak shape (200k seeded, then 120k soak events), live heap every 8,000 events (MiB): {}",
        series.join(" ")
    );
}
