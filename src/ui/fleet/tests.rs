use super::*;
use gobare_api::model::{Event, Session};
use ratatui::style::Style;
use serde_json::json;

const NOW: i64 = 1_789_400_000_000;
const MIN: i64 = 60_000;

fn session(value: serde_json::Value) -> Session {
    serde_json::from_value(value).unwrap()
}

fn event(id: &str, seq: u64, at: i64, kind: &str, payload: serde_json::Value) -> Event {
    Event::parse(
        &json!({"type": kind, "session_id": id, "seq": seq, "created_at": at, "payload": payload})
            .to_string(),
    )
    .unwrap()
}

/// A fleet of six: a crew of three, a failed one, an idle untitled one, a working one.
fn fleet() -> FleetModel {
    let mut model = FleetModel::new();
    let sessions = [
        json!({"id": "lead-0000", "title": "Release crew", "status": "working",
               "created_at": NOW - 60 * MIN, "updated_at": NOW - 2 * MIN,
               "environment": {"state": "running"}}),
        json!({"id": "m1-00000", "status": "requires_action", "parent_session_id": "lead-0000",
               "created_at": NOW - 50 * MIN, "updated_at": NOW - 3 * MIN,
               "environment": {"state": "running"},
               "required_actions": [{"type": "approval", "turn_id": "t", "call_id": "c"}]}),
        json!({"id": "m2-00000", "title": "Fix the failing deploy", "status": "idle",
               "parent_session_id": "lead-0000",
               "created_at": NOW - 50 * MIN, "updated_at": NOW - 30 * MIN,
               "environment": {"state": "paused"}}),
        json!({"id": "fail-000", "title": "Billing migration", "status": "failed",
               "created_at": NOW - 40 * MIN, "updated_at": NOW - 10 * MIN,
               "environment": {"state": "running"}}),
        json!({"id": "idle-000", "status": "idle", "created_at": NOW - 90 * MIN,
               "updated_at": NOW - 90 * MIN, "environment": {"state": "destroyed"}}),
        json!({"id": "work-000", "title": "Summarise\u{1b}[31m the repo", "status": "idle",
               "created_at": NOW - 5 * MIN, "updated_at": NOW - 5 * MIN,
               "environment": {"state": "running"}}),
    ];
    let sessions: Vec<Session> = sessions.into_iter().map(session).collect();
    model.apply_full_list(&sessions);
    model.set_first_message("m1-00000", "Restart the stuck export worker");
    model.apply_event(&event(
        "work-000",
        1,
        NOW - 192_000,
        "turn.started",
        json!({"turnId": "t"}),
    ));
    model.apply_event(&event(
        "work-000",
        2,
        NOW - MIN,
        "agent.todos",
        json!({"items": [{"label": "a", "status": "done"}, {"label": "b", "status": "done"},
                         {"label": "c", "status": "pending"}]}),
    ));
    model.apply_event(&event(
        "work-000",
        3,
        NOW - MIN,
        "message.queued",
        json!({"text": "x"}),
    ));
    model.apply_event(&event(
        "work-000",
        4,
        NOW - MIN,
        "artifact.created",
        json!({"id": "a", "path": "/workspace/outputs/r.md"}),
    ));
    model.set_details("work-000", Some(812), None);
    model
}

fn screen(view: &mut FleetView, model: &FleetModel, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &Theme::default(), NOW);
    crate::ui::text::buffer_text::rows_trimmed(&buf)
}

fn press(view: &mut FleetView, code: KeyCode) -> FleetAction {
    view.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn typed(view: &mut FleetView, text: &str) {
    for c in text.chars() {
        press(view, KeyCode::Char(c));
    }
}

#[test]
fn snapshot_the_fleet_with_a_crew_tree() {
    let model = fleet();
    let mut view = FleetView::new();
    insta::assert_snapshot!("fleet_crew_tree", screen(&mut view, &model, 150, 12));
}

#[test]
fn snapshot_a_filtered_fleet_asking_to_delete() {
    let model = fleet();
    let mut view = FleetView::new();
    screen(&mut view, &model, 150, 12);
    press(&mut view, KeyCode::Char('/'));
    typed(&mut view, "bill");
    press(&mut view, KeyCode::Enter);
    screen(&mut view, &model, 150, 12);
    press(&mut view, KeyCode::Char('d'));
    insta::assert_snapshot!("fleet_filtered_delete", screen(&mut view, &model, 150, 12));
}

#[test]
fn the_crew_with_a_waiting_member_comes_first_and_no_row_is_a_bare_id() {
    let model = fleet();
    let mut view = FleetView::new();
    let text = screen(&mut view, &model, 150, 12);
    let rows: Vec<&str> = text.lines().skip(2).take(6).collect();
    assert!(rows[0].contains("Release crew"), "{text}");
    assert!(
        rows[1].contains("└ Restart the stuck export worker"),
        "{text}"
    );
    assert!(rows[1].contains("needs you: approval"), "{text}");
    assert!(
        rows[3].contains("Billing migration") && rows[3].contains("failed"),
        "{text}"
    );
    assert!(
        rows[4].contains("3m 12s 2/3") && rows[4].contains("+1"),
        "{text}"
    );
    assert!(rows[4].contains("13m 32s"), "usage: {text}");
    assert!(rows[5].contains("(untitled)"), "{text}");
    assert!(!text.contains('\u{1b}'));
    for id in ["lead-0000", "m1-00000", "idle-000"] {
        assert!(!text.contains(id), "{text}");
    }
}

#[test]
fn letters_are_commands_in_the_list_and_text_in_the_filter() {
    let model = fleet();
    let mut view = FleetView::new();
    screen(&mut view, &model, 150, 12);
    assert_eq!(view.selected(), Some("lead-0000"));
    assert_eq!(press(&mut view, KeyCode::Char('n')), FleetAction::New);
    assert_eq!(press(&mut view, KeyCode::Char('z')), FleetAction::Consumed);
    press(&mut view, KeyCode::Char('/'));
    assert!(view.is_modal());
    typed(&mut view, "nq");
    assert_eq!(view.filter, "nq", "n and q are text in the filter");
    press(&mut view, KeyCode::Esc);
    assert!(!view.is_modal() && view.filter.is_empty());
    press(&mut view, KeyCode::Down);
    assert_eq!(
        press(&mut view, KeyCode::Enter),
        FleetAction::Open("m1-00000".into())
    );
    assert_eq!(press(&mut view, KeyCode::Char('q')), FleetAction::Quit);
}

#[test]
fn delete_fork_and_rename_ask_first() {
    let model = fleet();
    let mut view = FleetView::new();
    screen(&mut view, &model, 150, 12);
    view.select("fail-000");
    press(&mut view, KeyCode::Char('d'));
    let text = screen(&mut view, &model, 150, 12);
    assert!(
        text.contains("Delete “Billing migration”? Its transcript"),
        "{text}"
    );
    assert_eq!(press(&mut view, KeyCode::Char('x')), FleetAction::Consumed);
    assert_eq!(press(&mut view, KeyCode::Char('n')), FleetAction::Consumed);
    assert!(!view.is_modal(), "n keeps it");
    press(&mut view, KeyCode::Char('d'));
    assert_eq!(
        press(&mut view, KeyCode::Char('y')),
        FleetAction::Delete("fail-000".into())
    );
    press(&mut view, KeyCode::Char('f'));
    assert_eq!(
        press(&mut view, KeyCode::Char('y')),
        FleetAction::Fork("fail-000".into())
    );
    press(&mut view, KeyCode::Char('r'));
    typed(&mut view, " v2 ");
    assert_eq!(
        press(&mut view, KeyCode::Enter),
        FleetAction::Rename("fail-000".into(), Some("Billing migration v2".into())),
        "rename starts from the title as it is"
    );
    press(&mut view, KeyCode::Char('r'));
    view.handle_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    assert_eq!(
        press(&mut view, KeyCode::Enter),
        FleetAction::Rename("fail-000".into(), None),
        "an empty title clears it"
    );
}

#[test]
fn the_selection_follows_its_session_and_survives_its_leaving() {
    let mut model = fleet();
    let mut view = FleetView::new();
    screen(&mut view, &model, 150, 12);
    view.select("idle-000");
    model.apply_event(&event(
        "idle-000",
        9,
        NOW,
        "question.asked",
        json!({"toolCallId": "q", "question": "Which?"}),
    ));
    let text = screen(&mut view, &model, 150, 12);
    let row = text.lines().nth(7).unwrap();
    assert!(
        row.starts_with("│› ") && row.contains("needs you: question"),
        "the status at once, the row still in its place: {text}"
    );
    let held = NOW + crate::fleet::bands::BAND_HOLD_MS;
    let text = screen_at(&mut view, &model, held);
    let first = text.lines().nth(2).unwrap();
    assert!(
        first.starts_with("│› ") && first.contains("needs you: question"),
        "held two seconds: in its band, the selection with it: {text}"
    );
    let index = view.current_index();
    model.remove("idle-000");
    screen(&mut view, &model, 150, 12);
    assert_eq!(view.current_index(), index);
    assert!(view.selected().is_some_and(|id| id != "idle-000"));
}

#[test]
fn a_note_on_how_the_fleet_is_kept_live_is_visible() {
    let mut model = fleet();
    model.set_note(Some(
        "the org stream was refused (permission denied); polling the list every 10 s".into(),
    ));
    let mut view = FleetView::new();
    let text = screen(&mut view, &model, 150, 12);
    assert!(text.contains("the org stream was refused"), "{text}");
    view.set_message(Some("renamed".into()), false);
    let text = screen(&mut view, &model, 150, 12);
    assert!(
        text.contains("renamed") && !text.contains("refused"),
        "a message comes first: {text}"
    );
}

fn drawn(view: &mut FleetView, model: &FleetModel, width: u16, now: i64, theme: &Theme) -> Buffer {
    let area = Rect::new(0, 0, width, 12);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, theme, now);
    buf
}

/// What a view seeing `model` for the first time draws, `id` selected.
fn first_frame(
    model: &FleetModel,
    id: Option<&str>,
    width: u16,
    now: i64,
    theme: &Theme,
) -> Buffer {
    let mut view = FleetView::new();
    if let Some(id) = id {
        view.select(id);
    }
    drawn(&mut view, model, width, now, theme)
}

/// Rows kept from earlier frames draw exactly what a first frame draws, symbols and
/// styles: after events, as clocks move, with the selection moved, narrower, in another
/// theme.
#[test]
fn kept_rows_draw_what_a_first_frame_draws() {
    let mut model = fleet();
    let theme = Theme::default();
    let mut view = FleetView::new();
    let check = |view: &mut FleetView, model: &FleetModel, width, now, theme: &Theme| {
        let kept = drawn(view, model, width, now, theme);
        let first = first_frame(model, view.selected(), width, now, theme);
        assert_eq!(kept, first);
    };
    check(&mut view, &model, 150, NOW, &theme);
    check(&mut view, &model, 150, NOW, &theme);
    model.apply_event(&event(
        "fail-000",
        5,
        NOW - 1_000,
        "turn.started",
        json!({"turnId": "t2"}),
    ));
    model.apply_event(&event(
        "m2-00000",
        6,
        NOW - 500,
        "question.asked",
        json!({"toolCallId": "q1", "question": "which host?"}),
    ));
    check(&mut view, &model, 150, NOW, &theme);
    check(&mut view, &model, 150, NOW + 61_000, &theme);
    press(&mut view, KeyCode::Down);
    press(&mut view, KeyCode::Down);
    check(&mut view, &model, 150, NOW + 62_000, &theme);
    check(&mut view, &model, 90, NOW + 62_000, &theme);
    check(&mut view, &model, 150, NOW + 62_000, &Theme::no_color());
}

/// The fleet draws its whole area: nothing under it shows through.
#[test]
fn the_fleet_covers_what_was_drawn_before() {
    let model = fleet();
    let theme = Theme::default();
    let area = Rect::new(0, 0, 150, 12);
    let mut dirty = Buffer::filled(
        area,
        ratatui::buffer::Cell::new("x")
            .set_style(Style::default().fg(ratatui::style::Color::Red))
            .clone(),
    );
    FleetView::new().render(area, &mut dirty, &model, &theme, NOW);
    assert_eq!(dirty, first_frame(&model, None, 150, NOW, &theme));
}

fn screen_at(view: &mut FleetView, model: &FleetModel, now: i64) -> String {
    let area = Rect::new(0, 0, 150, 12);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &Theme::default(), now);
    crate::ui::text::buffer_text::rows(&buf)
}

#[test]
fn an_idle_screen_says_how_long_now_stays_true_and_a_minute_later_moves_on() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session(json!({
        "id": "only-000", "title": "Quiet one", "status": "idle",
        "created_at": NOW - 20_000, "updated_at": NOW - 20_000,
        "environment": {"state": "paused"}}))]);
    let mut view = FleetView::new();
    let first = screen_at(&mut view, &model, NOW);
    let row = first.lines().find(|l| l.contains("Quiet one")).unwrap();
    assert!(
        row.trim_end()
            .trim_end_matches('│')
            .trim_end()
            .ends_with("now"),
        "{row}"
    );
    // Nothing runs: the frame is true until the age turns a minute, and no longer.
    assert_eq!(view.true_for(), Some(std::time::Duration::from_secs(40)));
    let later = screen_at(&mut view, &model, NOW + 40_000);
    let row = later.lines().find(|l| l.contains("Quiet one")).unwrap();
    assert!(
        row.trim_end()
            .trim_end_matches('│')
            .trim_end()
            .ends_with("1m"),
        "{row}"
    );
    assert_eq!(view.true_for(), Some(std::time::Duration::from_secs(60)));
}

#[test]
fn a_running_clock_is_true_for_the_rest_of_its_second() {
    let model = fleet();
    let mut view = FleetView::new();
    screen_at(&mut view, &model, NOW + 250);
    assert_eq!(view.true_for(), Some(std::time::Duration::from_millis(750)));
}

#[test]
fn the_filter_shows_every_match_from_the_top_whatever_the_scroll_was() {
    let mut model = FleetModel::new();
    let sessions: Vec<Session> = (0..40)
        .map(|i| {
            let title = if i % 4 == 0 {
                format!("alpha {i}")
            } else {
                format!("beta {i}")
            };
            session(
                json!({"id": format!("s-{i:04}"), "title": title, "status": "idle",
                "created_at": NOW - i * MIN, "updated_at": NOW - i * MIN}),
            )
        })
        .collect();
    model.apply_full_list(&sessions);
    let mut view = FleetView::new();
    screen_at(&mut view, &model, NOW);
    press(&mut view, KeyCode::End);
    screen_at(&mut view, &model, NOW);
    press(&mut view, KeyCode::Char('/'));
    typed(&mut view, "alpha");
    let shown = screen_at(&mut view, &model, NOW);
    // 12 rows: frame, header, 7 list rows, mode line, hints, frame.
    let alphas: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("alpha ") && !l.contains("filter"))
        .collect();
    assert_eq!(alphas.len(), 7, "{shown}");
    assert!(
        alphas[0].contains("alpha 36"),
        "from the top, the oldest first: {shown}"
    );
    assert!(alphas[0].contains('›'), "the first match selected: {shown}");
}

#[test]
fn a_fleet_not_listed_yet_counts_nothing_and_says_why() {
    let mut model = FleetModel::new();
    let mut view = FleetView::new();
    let loading = screen_at(&mut view, &model, NOW);
    assert!(loading.contains("Fleet · not listed yet"), "{loading}");
    assert!(!loading.contains("need you"), "{loading}");
    model.set_trouble(Some(crate::fleet::trouble::Trouble::Unreachable {
        host: "gobare.example:443".into(),
        why: "connection refused".into(),
        retry_at_ms: NOW + 4_000,
    }));
    let unreachable = screen_at(&mut view, &model, NOW);
    assert!(
        unreachable
            .contains("cannot reach gobare.example:443 (connection refused) — retrying in 4 s"),
        "{unreachable}"
    );
    assert!(!unreachable.contains("0 need you"), "{unreachable}");
    assert_eq!(view.true_for(), Some(std::time::Duration::from_secs(1)));
}

#[test]
fn narrow_screens_drop_the_least_useful_columns_and_never_cut_one() {
    let model = fleet();
    let at = |w: u16| screen(&mut FleetView::new(), &model, w, 12);
    let wide = at(150);
    for column in ["Status", "Turn", "Q", "Workspace", "Art", "Usage", "Last"] {
        assert!(wide.lines().nth(1).unwrap().contains(column), "{wide}");
    }
    let narrow = at(80);
    let header = narrow.lines().nth(1).unwrap();
    for kept in ["Session", "Status", "Turn", "Q", "Last"] {
        assert!(header.contains(kept), "{kept}: {narrow}");
    }
    for dropped in ["Workspace", "Art", "Usage"] {
        assert!(!header.contains(dropped), "{dropped}: {narrow}");
    }
    let row = narrow.lines().find(|l| l.contains("Summarise")).unwrap();
    assert!(row.contains("3m 12s 2/3") && row.contains("+1"), "{narrow}");
    for w in [60u16, 70, 80, 100, 120] {
        let out = at(w);
        for line in out.lines().skip(1).take(7) {
            assert!(
                !line.trim_end_matches('│').trim_end().ends_with('…'),
                "{w} columns: a cut line\n{out}"
            );
        }
    }
    insta::assert_snapshot!("fleet_80_columns", at(80));
}

/// The fleet's box with its header's budget line, as the fleet's front draws it.
fn with_budgets(model: &FleetModel, width: u16, height: u16) -> String {
    use crate::budget::{Budgets, slots::Counts};
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    let theme = Theme::default();
    FleetView::new().render(area, &mut buf, model, &theme, NOW);
    let budgets = Budgets {
        counts: Some(Counts::of(model)),
        rate: Some(gobare_api::rate_budget::Bucket {
            limit: 120,
            remaining: 87,
            reset_secs: 17,
            at_ms: NOW,
        }),
        new_sessions: None,
        streams: 1,
    };
    crate::ui::budget_view::on_border(area, &mut buf, &budgets.header_lines(NOW), &theme);
    crate::ui::text::buffer_text::rows_trimmed(&buf)
}

#[test]
fn the_header_keeps_its_budgets_at_70_columns_in_short() {
    let model = fleet();
    let wide = with_budgets(&model, 150, 20);
    let top = wide.lines().next().unwrap();
    assert!(
        top.contains("slots 6/25 (1 paused) · API 87/120 · streams 1/5"),
        "{wide}"
    );
    let narrow = with_budgets(&model, 70, 20);
    let top = narrow.lines().next().unwrap();
    assert!(top.contains("Fleet · 6 sessions · 1 needs you"), "{narrow}");
    assert!(top.contains("slots 6/25 · API 87/120"), "{narrow}");
    insta::assert_snapshot!("fleet_budgets_70x20", narrow);
}

#[test]
fn rows_hold_their_places_while_the_selection_moves_and_re_sort_when_it_rests() {
    let mut model = fleet();
    let mut view = FleetView::new();
    let order = |text: &str| -> Vec<String> {
        text.lines()
            .skip(2)
            .take(6)
            .map(|l| {
                l.chars()
                    .skip(3)
                    .take(30)
                    .collect::<String>()
                    .trim()
                    .to_string()
            })
            .collect()
    };
    let before = order(&screen_at(&mut view, &model, NOW));
    press(&mut view, KeyCode::Down);
    screen_at(&mut view, &model, NOW);
    // The last row comes to need the user: it would sort to the top.
    model.apply_event(&event(
        "idle-000",
        9,
        NOW,
        "question.asked",
        json!({"toolCallId": "q", "question": "Which?"}),
    ));
    let held = screen_at(&mut view, &model, NOW + 500);
    assert_eq!(order(&held), before, "moved under the cursor:\n{held}");
    assert!(
        view.true_for()
            .is_some_and(|d| d <= std::time::Duration::from_millis(1500)),
        "a frame when the hold ends: {:?}",
        view.true_for()
    );
    let rested = screen_at(&mut view, &model, NOW + 2_500);
    assert_ne!(
        order(&rested),
        before,
        "re-sorted once the selection rested:\n{rested}"
    );
    assert!(
        rested
            .lines()
            .nth(2)
            .unwrap()
            .contains("needs you: question"),
        "{rested}"
    );
}

/// The fleet in each built-in theme, symbols and styles.
#[test]
fn fleet_in_each_theme() {
    use crate::ui::theme::Depth;
    let model = fleet();
    for (name, theme) in [
        ("dark_256", Theme::dark(Depth::Indexed256)),
        ("light_256", Theme::light(Depth::Indexed256)),
        ("light_16", Theme::light(Depth::Ansi16)),
        ("high_contrast", Theme::high_contrast()),
        (
            "colour_blind_dark_256",
            Theme::color_blind(Depth::Indexed256, false),
        ),
    ] {
        let area = Rect::new(0, 0, 120, 14);
        let mut buf = Buffer::empty(area);
        FleetView::new().render(area, &mut buf, &model, &theme, NOW);
        insta::assert_debug_snapshot!(format!("fleet_{name}"), buf);
    }
}

/// Ctrl+O from a session opens a fleet whose first listing may not be in yet: the row
/// asked for is selected once it comes, not the first row.
#[test]
fn a_selection_asked_for_before_the_first_listing_waits_for_it() {
    let mut view = FleetView::new();
    view.select("fail-000");
    screen(&mut view, &FleetModel::new(), 150, 12);
    assert_eq!(view.selected(), Some("fail-000"));
    screen(&mut view, &fleet(), 150, 12);
    assert_eq!(view.selected(), Some("fail-000"));
}
