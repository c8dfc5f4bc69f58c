//! Live heap held by the model and the transcript's line cache as a session grows, counted
//! by a global allocator wrapper (exact bytes requested, no allocator overhead or
//! fragmentation, unlike RSS). One line per checkpoint; the figure to watch is that the
//! heap stops growing once the transcript reaches its byte budget.
//!
//! Run: `cargo bench --bench model_memory`

#[path = "support/workload.rs"]
mod workload;

use gobare_tui::session::{SessionView, Update};
use gobare_tui::ui::composer::Composer;
use gobare_tui::ui::theme::Theme;
use gobare_tui::ui::{self, UiState};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
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
    let mut view = SessionView::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af");
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut ui = UiState::new();
    let composer = Composer::new();
    ui.composer_height = composer.desired_height(160);
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
                        .draw(|f| ui::draw(f, &view, &ui, &theme))
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
}
