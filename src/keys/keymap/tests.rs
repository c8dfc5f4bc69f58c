use super::*;

fn table(text: &str) -> toml::Table {
    text.parse().unwrap()
}

fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, mods)
}

#[test]
fn bindings_parse_and_match_where_their_row_acts() {
    let (map, warnings) = KeyMap::from_table(&table(
        "quit = \"ctrl+q\"\nzoom = \"f2\"\nhelp = \"H\"\npicker = \"alt+p\"",
    ));
    assert_eq!(
        warnings,
        vec!["config: [keys] help = \"H\": a plain character acts only in the panes".to_string()]
    );
    let ctrl_q = key(KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert_eq!(map.intent_for(&ctrl_q, Scope::Typing), Some(Intent::Quit));
    assert_eq!(map.intent_for(&ctrl_q, Scope::Deciding), Some(Intent::Quit));
    let f2 = key(KeyCode::F(2), KeyModifiers::NONE);
    assert_eq!(map.intent_for(&f2, Scope::Panes), Some(Intent::ToggleZoom));
    assert_eq!(
        map.intent_for(&f2, Scope::Typing),
        None,
        "zoom is a pane key"
    );
    let alt_p = key(KeyCode::Char('p'), KeyModifiers::ALT);
    assert_eq!(
        map.intent_for(&alt_p, Scope::Panes),
        Some(Intent::OpenPicker)
    );
    let shift_h = key(KeyCode::Char('H'), KeyModifiers::SHIFT);
    assert_eq!(
        map.intent_for(&shift_h, Scope::Panes),
        Some(Intent::ToggleHelp)
    );
}

#[test]
fn plain_characters_never_steal_from_the_input_box() {
    let (map, _) = KeyMap::from_table(&table("zoom = \"Z\""));
    let z = key(KeyCode::Char('Z'), KeyModifiers::SHIFT);
    assert_eq!(map.intent_for(&z, Scope::Typing), None);
    assert_eq!(map.intent_for(&z, Scope::Panes), Some(Intent::ToggleZoom));
}

#[test]
fn a_binding_that_hides_another_key_says_so() {
    let (map, warnings) = KeyMap::from_table(&table("zoom = \"x\""));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("hides x (export the session"),
        "{warnings:?}"
    );
    let x = key(KeyCode::Char('x'), KeyModifiers::NONE);
    assert_eq!(map.intent_for(&x, Scope::Panes), Some(Intent::ToggleZoom));
    let (_, warnings) = KeyMap::from_table(&table("quit = \"ctrl+s\""));
    assert!(warnings[0].contains("hides Ctrl+S (steer"), "{warnings:?}");
}

#[test]
fn earlier_names_still_bind() {
    let (map, warnings) = KeyMap::from_table(&table("focus_next = \"ctrl+n\""));
    assert!(warnings.is_empty(), "{warnings:?}");
    let ctrl_n = key(KeyCode::Char('n'), KeyModifiers::CONTROL);
    assert_eq!(
        map.intent_for(&ctrl_n, Scope::Panes),
        Some(Intent::PaneNext)
    );
}

#[test]
fn unknown_actions_and_keys_are_reported_not_fatal() {
    let (map, warnings) = KeyMap::from_table(&table(
        "launch = \"ctrl+l\"\nquit = \"ctrl+shift+nope\"\nzoom = 3",
    ));
    assert_eq!(map, KeyMap::default());
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("launch")));
}
