//! The fleet's labels and approval modes: labels shown after the name and matched by the
//! filter, `l` editing them (nothing sent until Enter, a bad pair refused in words), `M`
//! asking before it sets the mode of every session shown, naming how many.

use super::*;
use crate::ui::theme::Depth;
use gobare_api::model::Session;
use gobare_api::session_patch::ApprovalMode;
use serde_json::json;

const NOW: i64 = 1_789_400_000_000;
const MIN: i64 = 60_000;

fn labelled() -> FleetModel {
    let mut model = FleetModel::new();
    let sessions: Vec<Session> = [
        json!({"id": "job-0000", "title": "Nightly report", "status": "idle",
               "created_at": NOW - 60 * MIN, "updated_at": NOW - 2 * MIN,
               "environment": {"state": "paused"},
               "metadata": {"job": "8842", "team": "data"}}),
        json!({"id": "oth-0000", "title": "Fix the deploy", "status": "idle",
               "created_at": NOW - 50 * MIN, "updated_at": NOW - 3 * MIN,
               "environment": {"state": "running"}}),
        json!({"id": "hos-0000", "title": "Hostile", "status": "idle",
               "created_at": NOW - 40 * MIN, "updated_at": NOW - 4 * MIN,
               "environment": {"state": "running"},
               "metadata": {"x\u{1b}[2J": "y\u{202e}z"}}),
    ]
    .into_iter()
    .map(|v| serde_json::from_value(v).unwrap())
    .collect();
    model.apply_full_list(&sessions);
    model
}

fn drawn(view: &mut FleetView, model: &FleetModel, theme: &Theme) -> Buffer {
    let area = Rect::new(0, 0, 120, 8);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, theme, NOW);
    buf
}

fn text(view: &mut FleetView, model: &FleetModel) -> String {
    crate::ui::text::buffer_text::rows_trimmed(&drawn(view, model, &Theme::no_color()))
}

fn press(view: &mut FleetView, code: KeyCode) -> FleetAction {
    view.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn labels_show_after_the_name_sanitized_and_the_filter_matches_them() {
    let model = labelled();
    let mut view = FleetView::new();
    let out = text(&mut view, &model);
    assert!(
        out.contains("Nightly report  [job=8842 team=data]"),
        "{out}"
    );
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202e}'),
        "{out:?}"
    );
    view.set_filter("job=8842".into());
    let out = text(&mut view, &model);
    assert!(out.contains("Nightly report"), "{out}");
    assert!(!out.contains("Fix the deploy"), "{out}");
    assert!(out.contains("labels are matched here"), "{out}");
}

#[test]
fn l_edits_the_labels_and_sends_only_on_enter() {
    let model = labelled();
    let mut view = FleetView::new();
    text(&mut view, &model);
    view.select("job-0000");
    text(&mut view, &model);
    assert_eq!(press(&mut view, KeyCode::Char('l')), FleetAction::Consumed);
    let out = text(&mut view, &model);
    assert!(out.contains("labels (key=value"), "{out}");
    assert!(out.contains("job=8842 team=data▏"), "{out}");
    press(&mut view, KeyCode::Char(' '));
    for c in "run".chars() {
        assert_eq!(press(&mut view, KeyCode::Char(c)), FleetAction::Consumed);
    }
    // A pair without `=` is refused in words, and the line stays to fix it.
    assert_eq!(press(&mut view, KeyCode::Enter), FleetAction::Consumed);
    assert!(text(&mut view, &model).contains("not sent: \"run\" is not key=value"));
    for c in "=42".chars() {
        press(&mut view, KeyCode::Char(c));
    }
    let want = std::collections::BTreeMap::from([
        ("job".to_string(), "8842".to_string()),
        ("run".to_string(), "42".to_string()),
        ("team".to_string(), "data".to_string()),
    ]);
    assert_eq!(
        press(&mut view, KeyCode::Enter),
        FleetAction::SetLabels("job-0000".into(), want)
    );
}

#[test]
fn m_asks_naming_how_many_and_m_again_picks_the_next_mode() {
    let model = labelled();
    let mut view = FleetView::new();
    text(&mut view, &model);
    assert_eq!(press(&mut view, KeyCode::Char('M')), FleetAction::Consumed);
    let out = text(&mut view, &model);
    assert!(
        out.contains("Set approval mode per_step on the 3 sessions shown"),
        "{out}"
    );
    assert!(out.contains("next turn"), "{out}");
    assert_eq!(press(&mut view, KeyCode::Char('M')), FleetAction::Consumed);
    assert!(text(&mut view, &model).contains("mode read_only on"));
    // Another letter answers nothing; n sends nothing.
    assert_eq!(press(&mut view, KeyCode::Char('x')), FleetAction::Consumed);
    assert_eq!(press(&mut view, KeyCode::Char('n')), FleetAction::Consumed);
    assert!(!text(&mut view, &model).contains("Set approval mode"));
    // The filter narrows what is set.
    view.set_filter("job=8842".into());
    text(&mut view, &model);
    press(&mut view, KeyCode::Char('M'));
    assert!(text(&mut view, &model).contains("on the 1 session shown"));
    assert_eq!(
        press(&mut view, KeyCode::Char('y')),
        FleetAction::SetMode(vec!["job-0000".into()], ApprovalMode::PerStep)
    );
}

/// Labels in the rows and the mode question, in each built-in theme.
#[test]
fn labels_and_the_mode_question_in_each_theme() {
    let model = labelled();
    for (name, theme) in [
        ("dark_256", Theme::dark(Depth::Indexed256)),
        ("light_256", Theme::light(Depth::Indexed256)),
        ("high_contrast", Theme::high_contrast()),
        (
            "colour_blind_dark_256",
            Theme::color_blind(Depth::Indexed256, false),
        ),
    ] {
        let mut view = FleetView::new();
        drawn(&mut view, &model, &theme);
        press(&mut view, KeyCode::Char('M'));
        insta::assert_debug_snapshot!(
            format!("fleet_labels_mode_{name}"),
            drawn(&mut view, &model, &theme)
        );
    }
}
