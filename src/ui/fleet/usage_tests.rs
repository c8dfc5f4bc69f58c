//! A running workspace's usage on a fleet row: counted on from the server's `as_of` in
//! minute steps, equal to what the session's Workspace pane says of the same read, and
//! drawn again once a minute, not every second.

use super::*;
use gobare_api::model::{Event, Session, Usage};
use serde_json::json;

const AS_OF: i64 = 1_789_400_000_000;
const MIN: i64 = 60_000;
/// What the server read: 4m 50s.
const READ_SECONDS: u64 = 290;

fn running_fleet() -> FleetModel {
    let mut model = FleetModel::new();
    let session: Session = serde_json::from_value(json!({
        "id": "busy-000", "title": "Nightly export", "status": "working",
        "created_at": AS_OF - 30 * MIN, "updated_at": AS_OF,
        "environment": {"state": "running"}}))
    .unwrap();
    model.apply_full_list(&[session]);
    model.set_details("busy-000", Some(READ_SECONDS), None);
    model.know_usage("busy-000", READ_SECONDS, AS_OF);
    model
}

fn usage_cell_at(view: &mut FleetView, model: &FleetModel, now: i64) -> String {
    let area = Rect::new(0, 0, 120, 8);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &Theme::default(), now);
    let text = crate::ui::text::buffer_text::rows(&buf);
    let row = text.lines().find(|l| l.contains("Nightly export")).unwrap();
    // The usage cell: the 7 columns before the age's 5 (right-aligned, a space apart).
    let row: Vec<char> = row.trim_end_matches(['│', ' ']).chars().collect();
    let end = row.len() - 6;
    row[end - 7..end]
        .iter()
        .collect::<String>()
        .trim()
        .to_string()
}

/// The session's Workspace pane's usage line for the same read at `now`.
fn pane_line_at(now: i64) -> String {
    let usage = crate::session::workspace::SandboxUsage {
        session: Usage {
            session_id: "busy-000".into(),
            scope: "session".into(),
            sessions: 1,
            as_of: Some(AS_OF),
            sandbox_seconds: READ_SECONDS,
            chargeable_seconds: 0,
        },
        crew: None,
    };
    let mut out = Vec::new();
    crate::ui::workspace::usage_lines(&usage, true, Some(now), 80, &Theme::default(), &mut out);
    out[0].spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn a_running_rows_usage_counts_on_from_as_of_and_agrees_with_the_sessions_pane() {
    let model = running_fleet();
    let mut view = FleetView::new();
    for minutes in [0, 1, 4, 10, 55, 70] {
        let now = AS_OF + minutes * MIN + 7_000;
        let cell = usage_cell_at(&mut view, &model, now);
        let pane = pane_line_at(now);
        let counted = READ_SECONDS + (minutes * 60 + 7) as u64;
        // Past five minutes without another read, both say the read is old.
        let old = minutes >= 5;
        assert_eq!(cell.ends_with('?'), old, "{cell} after {minutes} min");
        assert_eq!(pane.contains(" · read "), old, "{pane}");
        let cell = cell.trim_end_matches('?');
        assert_eq!(cell, usage_cell::minutes(counted), "after {minutes} min");
        // The pane says the same figure to the second; the row to the minute.
        let exact = crate::readable::times::duration(counted as i64 * 1000);
        assert!(
            pane.starts_with(&format!("usage {exact} sandbox")),
            "{pane}"
        );
        let pane_minutes = exact.split(' ').next().unwrap();
        assert!(cell.starts_with(pane_minutes), "{cell} against {pane}");
    }
}

#[test]
fn a_running_rows_usage_moves_in_minute_steps() {
    let model = running_fleet();
    let mut view = FleetView::new();
    // 4m 50s read; ten seconds later it turns 5m, and stays 5m for a minute.
    assert_eq!(usage_cell_at(&mut view, &model, AS_OF), "4m");
    assert_eq!(
        view.true_for(),
        Some(std::time::Duration::from_secs(10)),
        "the frame stays true until the count's next minute"
    );
    assert_eq!(usage_cell_at(&mut view, &model, AS_OF + 10_000), "5m");
    assert_eq!(usage_cell_at(&mut view, &model, AS_OF + 69_000), "5m");
    assert_eq!(usage_cell_at(&mut view, &model, AS_OF + 70_000), "6m");
}

#[test]
fn an_old_read_is_marked_and_the_selected_row_says_how_old() {
    let model = running_fleet();
    let mut view = FleetView::new();
    let now = AS_OF + 9 * MIN;
    assert_eq!(usage_cell_at(&mut view, &model, now), "13m?");
    let area = Rect::new(0, 0, 120, 8);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, &model, &Theme::default(), now);
    let text = crate::ui::text::buffer_text::rows(&buf);
    assert!(text.contains("usage read 9m 00s ago"), "{text}");
    // A paused workspace's figure is what it was: exact, never marked.
    let mut paused = model.clone();
    paused.apply_event(
        &Event::parse(
            &json!({"type": "sandbox.paused", "session_id": "busy-000", "seq": 9,
                    "created_at": AS_OF, "payload": {"state": "paused"}})
            .to_string(),
        )
        .unwrap(),
    );
    let mut view = FleetView::new();
    let area = Rect::new(0, 0, 120, 8);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, &paused, &Theme::default(), now);
    let text = crate::ui::text::buffer_text::rows(&buf);
    let row = text.lines().find(|l| l.contains("Nightly export")).unwrap();
    assert!(row.contains(" 4m 50s ") && !row.contains('?'), "{row}");
}
