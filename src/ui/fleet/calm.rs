//! A minute of a busy fleet (the simulator's `--fleet 60 --fleet-activity 50`, as a trace)
//! drawn at 160×48 under tokio's paused clock, ten frames a second: the selected row keeps
//! its line on the screen, rows move seldom, and the news the fleet's notifier tells is
//! one notification at most every ten seconds, none for an approval granted at once.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::task_fixture::Task;
use super::*;
use crate::fleet::trace::Trace;
use gobare_api::model::Event;

const T0: i64 = 1_789_400_000_000;
const FRAME_MS: u64 = 100;

/// What a minute of the trace did to the screen and the notifier.
#[derive(Debug, Default)]
struct Minute {
    /// The selected row's line on each frame.
    selected_lines: Vec<usize>,
    /// Rows on screen at one second and the next whose line changed, summed.
    moved: usize,
    /// Notifications told (each one bell).
    told: Vec<String>,
}

/// The line each shown session is drawn on.
fn lines(view: &FleetView) -> std::collections::HashMap<String, usize> {
    view.on_screen()
        .iter()
        .enumerate()
        .map(|(line, id)| (id.clone(), line))
        .collect()
}

/// The question lead `second % 10 + 1` asks at `second`.
fn asked_at(second: u64) -> Event {
    let lead = format!("lead-{:03}", second % 10 + 1);
    Event::parse(
        &serde_json::json!({"type": "question.asked", "session_id": lead,
            "seq": 1_000_000 + second, "created_at": T0 + second as i64 * 1_000,
            "payload": {"tool_call_id": format!("q-{second}"),
                        "question": "Ship it?"}})
        .to_string(),
    )
    .unwrap()
}

/// Plays `seconds` of the trace, questions asked (and never answered) at `asked` seconds.
async fn play(seconds: u64, asked: &[u64]) -> Minute {
    let (mut trace, listed) = Trace::new(60, 50, T0);
    let mut task = Task::listed(&listed);
    let mut view = FleetView::new();
    let area = Rect::new(0, 0, 160, 48);
    let start = tokio::time::Instant::now();
    let now_ms = || T0 + start.elapsed().as_millis() as i64;
    let draw = |view: &mut FleetView, model: &FleetModel| {
        let mut buf = Buffer::empty(area);
        view.render(area, &mut buf, model, &Theme::default(), now_ms());
    };
    draw(&mut view, &task.model);
    // The person moves down to the rows that take turns (below the forty that wait) and
    // leaves the keys alone.
    for _ in 0..50 {
        view.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    }
    let mut minute = Minute::default();
    let mut pending: Vec<Event> = Vec::new();
    let mut last_second = lines(&view);
    for second in 0..seconds {
        pending.extend(trace.second(second));
        if asked.contains(&second) {
            pending.push(asked_at(second));
        }
        for _ in 0..1_000 / FRAME_MS {
            tokio::time::sleep(Duration::from_millis(FRAME_MS)).await;
            let now = now_ms();
            let due: Vec<Event> = pending
                .extract_if(.., |e| e.created_at.unwrap_or(0) <= now)
                .collect();
            for event in &due {
                task.apply(event);
            }
            let told = task
                .pacer
                .take_due_of(tokio::time::Instant::now(), &task.model);
            minute.told.extend(told.map(|n| n.line));
            draw(&mut view, &task.model);
            let selected = view.selected().expect("a selection").to_string();
            let line = view.on_screen().iter().position(|id| *id == selected);
            minute
                .selected_lines
                .push(line.expect("the selected row is on screen"));
        }
        let now_lines = lines(&view);
        minute.moved += now_lines
            .iter()
            .filter(|(id, line)| last_second.get(*id).is_some_and(|was| was != *line))
            .count();
        last_second = now_lines;
    }
    minute
}

#[tokio::test(start_paused = true)]
async fn a_busy_minute_leaves_the_selected_row_on_its_line_and_rings_at_most_every_ten_seconds() {
    let minute = play(60, &[5, 6, 7, 20, 21, 40]).await;
    let first = minute.selected_lines[0];
    assert!(
        minute.selected_lines.iter().all(|&l| l == first),
        "the selected row left its line: {:?}",
        minute.selected_lines
    );
    let per_second = minute.moved as f64 / 60.0;
    eprintln!(
        "rows moved a second: {per_second:.2}; notifications a minute: {} {:?}",
        minute.told.len(),
        minute.told
    );
    assert!(per_second < 3.0, "rows moved a second: {per_second}");
    // The trace's 240 approvals a minute were all granted before they held: none told.
    assert!(
        minute.told.iter().all(|l| !l.contains("approval")),
        "{:?}",
        minute.told
    );
    // Questions at 5, 6 and 7 s: the first alone once held, the next two together a
    // window later; 20 and 21 together; 40 alone.
    assert_eq!(minute.told.len(), 4, "{:?}", minute.told);
    assert!(
        minute.told[0].ends_with("needs you: question"),
        "{:?}",
        minute.told
    );
    assert!(minute.told[1].contains("need you:"), "{:?}", minute.told);
}
