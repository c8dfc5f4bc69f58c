//! One keystroke in the input box holding a 5 MB draft (100,000 lines of ~50 characters),
//! with what the app does for each key: the composer's edit, the draft marked for the
//! (rate-limited, off-thread) state write, the box's height for the layout, and the box
//! drawn at 160×48 with its title. Budget: under 5 ms per key.
//!
//! * `insert` — a character typed at the cursor (the end of the draft, as after a paste);
//! * `left` — the cursor moved one character;
//! * `backspace` — the character before the cursor deleted.
//!
//! Run: `cargo bench --bench keystroke -- --warm-up-time 1 --measurement-time 3` (the figures
//! in `docs/perf.md` are from `--profile dev`, unoptimized: the budget holds there too).

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_tui::app::shared::saved_session::{SavedSession, SharedSavedSession};
use gobare_tui::store::StateStore;
use gobare_tui::ui::composer::{BoxLook, Composer};
use gobare_tui::ui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

const COLS: u16 = 160;
const ROWS: u16 = 48;
const DRAFT_LINES: usize = 100_000;

/// ~5 MB of prose-like lines, as a paste of a log or a long document would be.
fn draft() -> String {
    let line = "export worker 7 retried the batch after a timeout;";
    let mut text = String::with_capacity(DRAFT_LINES * (line.len() + 8));
    for i in 0..DRAFT_LINES {
        text.push_str(line);
        text.push_str(&format!(" {i}\n"));
    }
    text
}

struct Keyboard {
    composer: Composer,
    saved_session: SharedSavedSession,
    theme: Theme,
    buf: Buffer,
    _dir: tempfile::TempDir,
}

impl Keyboard {
    fn new() -> Keyboard {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = url::Url::parse("http://127.0.0.1:4780").expect("url");
        let store = StateStore::open(dir.path(), &api).expect("store");
        let mut composer = Composer::new();
        composer.set_text(&draft());
        Keyboard {
            composer,
            saved_session: SavedSession::open(store, "s1").shared(),
            theme: Theme::default(),
            buf: Buffer::empty(Rect::new(0, 0, COLS, ROWS)),
            _dir: dir,
        }
    }

    /// The key, then what the app does after it until the frame is drawn.
    fn press(&mut self, code: KeyCode) {
        self.composer
            .handle_key(KeyEvent::new(code, KeyModifiers::NONE));
        let mut saved_session = self.saved_session.lock().expect("saved session");
        saved_session.note_draft_edited();
        assert!(saved_session.is_dirty(), "the loop schedules a write");
        drop(saved_session);
        let height = self.composer.desired_height(COLS);
        let area = Rect::new(0, ROWS - height, COLS, height);
        self.composer
            .render(area, &mut self.buf, &self.theme, BoxLook::Typing);
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("keystroke_5mb_draft");
    g.sample_size(20);
    let mut keys = Keyboard::new();
    g.bench_function("insert", |b| b.iter(|| keys.press(KeyCode::Char('x'))));
    let mut keys = Keyboard::new();
    g.bench_function("left", |b| b.iter(|| keys.press(KeyCode::Left)));
    let mut keys = Keyboard::new();
    g.bench_function("backspace", |b| b.iter(|| keys.press(KeyCode::Backspace)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
