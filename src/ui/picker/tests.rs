use super::*;
use gobare_api::model::{RequiredAction, RequiredActionKind};
use serde_json::json;

const NOW: i64 = 1_789_400_000_000;
const MIN: i64 = 60_000;

fn session(
    id: &str,
    title: Option<&str>,
    status: &str,
    state: Option<&str>,
    age_ms: i64,
) -> Session {
    let mut s: Session = serde_json::from_value(json!({
        "id": id,
        "title": title,
        "status": status,
        "created_at": NOW - age_ms,
        "updated_at": NOW - age_ms,
        "source": "api",
        "created_by_token": null,
        "parent_session_id": null,
        "environment": {"type": "sandbox", "state": state, "workspace_directory": "/workspace", "repo": null},
    }))
    .unwrap();
    s.required_actions = Vec::new();
    s
}

fn needing_approval(mut s: Session) -> Session {
    s.required_actions.push(RequiredAction {
        kind: RequiredActionKind::Approval,
        turn_id: "turn_1".into(),
        call_id: "call_1".into(),
        name: Some("bash".into()),
        arguments: json!({}),
        created_at: None,
        expires_at: None,
    });
    s
}

fn numbered(n: usize) -> Vec<Session> {
    (0..n)
        .map(|i| {
            session(
                &format!("id-{i:03}"),
                Some(&format!("s{i}")),
                "idle",
                Some("paused"),
                i as i64 * MIN,
            )
        })
        .collect()
}

fn press(p: &mut PickerState, code: KeyCode) -> PickerAction {
    p.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn screen(p: &PickerState, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    p.render(area, &mut buf, &Theme::default(), NOW);
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn snapshot(name: &str, p: &PickerState, width: u16, height: u16) {
    // Beside the test file, as every snapshot in the crate.
    insta::assert_snapshot!(name, screen(p, width, height));
}

#[test]
fn ages_are_coarse() {
    assert_eq!(age(-5_000), "now");
    assert_eq!(age(59_000), "now");
    assert_eq!(age(3 * MIN), "3 m");
    assert_eq!(age(2 * 60 * MIN + 5), "2 h");
    assert_eq!(age(5 * 24 * 60 * MIN), "5 d");
}

#[test]
fn pages_are_kept_newest_first_without_duplicates() {
    let mut p = PickerState::loading();
    let mut page = numbered(3);
    page.reverse(); // oldest first from the server
    p.append_page(page, true);
    assert!(!p.is_loading());
    let ids: Vec<&str> = p.sessions().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["id-000", "id-001", "id-002"]);
    // An overlapping page updates in place.
    let mut updated = session("id-001", Some("renamed"), "working", None, MIN);
    updated.updated_at = NOW;
    p.append_page(
        vec![updated, session("id-009", None, "idle", None, 9 * MIN)],
        false,
    );
    assert_eq!(p.sessions().len(), 4);
    assert_eq!(p.sessions()[1].title.as_deref(), Some("renamed"));
    assert!(!p.has_more());
}

#[test]
fn arrows_home_end_move_and_enter_opens() {
    let mut p = PickerState::default();
    p.append_page(numbered(5), false);
    assert_eq!(press(&mut p, KeyCode::Down), PickerAction::Consumed);
    assert_eq!(press(&mut p, KeyCode::Down), PickerAction::Consumed);
    assert_eq!(
        press(&mut p, KeyCode::Enter),
        PickerAction::Open("id-002".into())
    );
    assert_eq!(press(&mut p, KeyCode::Up), PickerAction::Consumed);
    assert_eq!(
        press(&mut p, KeyCode::Enter),
        PickerAction::Open("id-001".into())
    );
    press(&mut p, KeyCode::End);
    assert_eq!(p.selected_session().unwrap().id, "id-004");
    press(&mut p, KeyCode::Down);
    assert_eq!(
        p.selected_session().unwrap().id,
        "id-004",
        "stays at the end"
    );
    press(&mut p, KeyCode::Home);
    press(&mut p, KeyCode::Up);
    assert_eq!(p.selected_session().unwrap().id, "id-000");
}

#[test]
fn page_keys_move_by_the_drawn_page() {
    let mut p = PickerState::default();
    p.append_page(numbered(30), false);
    let _ = screen(&p, 80, 12); // 12 rows - 2 borders - header - footer = 8 list rows
    press(&mut p, KeyCode::PageDown);
    assert_eq!(p.selected_session().unwrap().id, "id-008");
    press(&mut p, KeyCode::PageUp);
    assert_eq!(p.selected_session().unwrap().id, "id-000");
    press(&mut p, KeyCode::End);
    let text = screen(&p, 80, 12);
    assert!(
        text.contains("› s29"),
        "selection scrolled into view:\n{text}"
    );
    assert!(!text.contains("s20 "), "{text}");
}

#[test]
fn reaching_the_end_with_more_asks_once() {
    let mut p = PickerState::default();
    p.append_page(numbered(3), true);
    assert_eq!(press(&mut p, KeyCode::Down), PickerAction::Consumed);
    assert_eq!(press(&mut p, KeyCode::Down), PickerAction::LoadMore);
    assert!(p.is_loading());
    assert_eq!(
        press(&mut p, KeyCode::Down),
        PickerAction::Consumed,
        "already loading"
    );
    p.append_page(numbered(6)[3..].to_vec(), false);
    assert_eq!(p.selected_session().unwrap().id, "id-002", "selection kept");
    assert_eq!(
        press(&mut p, KeyCode::End),
        PickerAction::Consumed,
        "no more pages"
    );
    assert_eq!(p.selected_session().unwrap().id, "id-005");
}

#[test]
fn end_asks_for_more_too() {
    let mut p = PickerState::default();
    p.append_page(numbered(3), true);
    assert_eq!(press(&mut p, KeyCode::End), PickerAction::LoadMore);
}

#[test]
fn n_new_and_esc_q_close_and_others_are_consumed() {
    let mut p = PickerState::default();
    assert_eq!(press(&mut p, KeyCode::Char('n')), PickerAction::New);
    assert_eq!(press(&mut p, KeyCode::Esc), PickerAction::Close);
    assert_eq!(press(&mut p, KeyCode::Char('q')), PickerAction::Close);
    assert_eq!(
        press(&mut p, KeyCode::Enter),
        PickerAction::Consumed,
        "nothing to open"
    );
    assert_eq!(press(&mut p, KeyCode::Char('x')), PickerAction::Consumed);
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(
        p.handle_key(ctrl_c),
        PickerAction::NotMine,
        "quit stays the app's"
    );
}

#[test]
fn hostile_titles_are_sanitized() {
    let mut p = PickerState::default();
    p.append_page(
        vec![session(
            "id-1",
            Some("\u{1b}[2J\u{1b}]8;;http://x\u{7}evil\u{202e}cod.exe"),
            "idle",
            Some("running"),
            MIN,
        )],
        false,
    );
    p.set_error(Some("bad \u{1b}[31m gateway".into()));
    let text = screen(&p, 100, 8);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(!text.contains('\u{7}'), "{text}");
    assert!(!text.contains('\u{202e}'), "{text}");
    assert!(text.contains("evil"), "{text}");
    assert!(text.contains("couldn't load sessions: bad"), "{text}");
}

#[test]
fn needs_you_comes_from_required_actions_even_when_working() {
    let mut p = PickerState::default();
    p.append_page(
        vec![needing_approval(session(
            "id-1",
            Some("deploy"),
            "working",
            Some("running"),
            MIN,
        ))],
        false,
    );
    assert!(screen(&p, 80, 6).contains("needs you"));
}

#[test]
fn snapshot_a_few_sessions() {
    let mut p = PickerState::default();
    p.append_page(
        vec![
            session("3f9c1b60-4e2a-4d18", None, "idle", Some("unknown"), 30_000),
            needing_approval(session(
                "b2",
                Some("Fix the export job"),
                "working",
                Some("running"),
                3 * MIN,
            )),
            session(
                "c3",
                Some("Summarise the repo"),
                "working",
                Some("running"),
                2 * 60 * MIN,
            ),
            session(
                "d4",
                Some("Migrate the billing tables to the new schema, carefully"),
                "failed",
                Some("recovery_failed"),
                26 * 60 * MIN,
            ),
            session(
                "e5",
                Some("Old chat"),
                "idle",
                Some("destroyed"),
                5 * 24 * 60 * MIN,
            ),
        ],
        true,
    );
    p.add_first_messages([(
        "3f9c1b60-4e2a-4d18".to_string(),
        "Why is the \u{1b}[2Jnightly export slow?".to_string(),
    )]);
    press(&mut p, KeyCode::Down);
    snapshot("picker_sessions", &p, 80, 10);
}

#[test]
fn an_untitled_session_is_never_labelled_by_its_id() {
    let mut p = PickerState::default();
    let id = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";
    p.append_page(vec![session(id, Some("  "), "idle", None, MIN)], false);
    let drawn = screen(&p, 80, 6);
    assert!(drawn.contains("(untitled)"), "{drawn}");
    assert!(!drawn.contains("3f9c1b60"), "{drawn}");
    p.add_first_messages([(id.to_string(), "Summarise\nthe repo".to_string())]);
    let drawn = screen(&p, 80, 6);
    assert!(drawn.contains("Summarise the repo"), "{drawn}");
}

#[test]
fn snapshot_empty() {
    let mut p = PickerState::loading();
    p.append_page(Vec::new(), false);
    snapshot("picker_empty", &p, 60, 6);
}

#[test]
fn needs_you_is_drawn_as_a_badge() {
    let mut p = PickerState::default();
    p.append_page(
        vec![
            session("a", Some("first"), "idle", None, MIN),
            needing_approval(session("b", Some("second"), "working", None, 2 * MIN)),
        ],
        false,
    );
    let theme = Theme::default();
    let area = Rect::new(0, 0, 80, 6);
    let mut buf = Buffer::empty(area);
    p.render(area, &mut buf, &theme, NOW);
    let row: String = (0..80).map(|x| buf[(x, 3)].symbol()).collect();
    let byte = row.find("needs you").expect("badge on the second row");
    let col = row[..byte].chars().count() as u16; // one cell per symbol on this row
    assert!(buf[(col, 3)].modifier.contains(theme.badge.add_modifier));
}
