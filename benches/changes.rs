//! Landing the work: composing a session's 2,000 `file.changed` events (200 files, 10
//! edits each) into a patch (budget < 300 ms), and the changes view's first frame for a
//! turn touching 200 files / 20,000 changed lines (budget < 50 ms for the list and the
//! first file's diff).

use criterion::{Criterion, criterion_group, criterion_main};
use gobare_api::model::{ChangeKind, Event, EventPayload, FileChange};
use gobare_tui::changes::perf::hunks;
use std::hint::black_box;

fn event(seq: u64, path: &str, kind: ChangeKind, diff: String) -> Event {
    Event {
        kind: std::borrow::Cow::Borrowed("file.changed"),
        internal_type: None,
        session_id: None,
        seq: Some(seq),
        created_at: Some(seq as i64),
        payload: EventPayload::FileChanged(FileChange {
            path: format!("/workspace/{path}"),
            change_type: kind,
            diff: Some(diff),
            tool_call_id: None,
        }),
    }
}

/// `files` files of 300 lines, each edited `edits` times at a few places.
fn session(files: usize, edits: usize, lines: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut seq = 0;
    for f in 0..files {
        let path = format!("src/module_{f:03}/lib.rs");
        let mut text: Vec<String> = (0..300)
            .map(|i| format!("    let value_{i} = compute({i}, {f});\n"))
            .collect();
        for e in 0..edits {
            let before = text.concat();
            // Each edit rewrites a block of `lines / edits` lines somewhere down the file.
            let block = (lines / edits).max(1);
            let at = (e * 29 + f * 7) % (300 - block);
            for line in text.iter_mut().skip(at).take(block) {
                *line = line.replace("compute", &format!("compute_v{e}"));
            }
            seq += 1;
            events.push(event(
                seq,
                &path,
                ChangeKind::Modified,
                hunks(&before, &text.concat()),
            ));
        }
    }
    events
}

fn bench(c: &mut Criterion) {
    let composing = session(200, 10, 20);
    c.bench_function("patch of 2,000 file.changed events (200 files)", |b| {
        b.iter(|| black_box(gobare_tui::changes::perf::patch_of(&composing)).len())
    });
    let wide = session(200, 1, 100);
    let files = gobare_tui::ui::overlays::changes_view::bench::view_files(&wide);
    c.bench_function(
        "changes view: first frame, 200 files / 20,000 changed lines, 160x48",
        |b| b.iter(|| gobare_tui::ui::overlays::changes_view::bench::first_frame(&files, 160, 48)),
    );
    c.bench_function(
        "changes view: first frame, 200 files / 20,000 changed lines, 100x30",
        |b| b.iter(|| gobare_tui::ui::overlays::changes_view::bench::first_frame(&files, 100, 30)),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
