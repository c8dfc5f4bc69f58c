use super::*;

fn table_rows() -> Vec<(String, String)> {
    crate::keys::table::help_rows()
}

fn screen(width: u16, height: u16) -> String {
    let rect = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(rect);
    // Something underneath that the overlay must hide.
    for y in 0..height {
        buf.set_string(0, y, "#".repeat(usize::from(width)), Theme::default().text);
    }
    render(rect, &mut buf, &Theme::default(), 0, &table_rows());
    crate::ui::text::buffer_text::rows(&buf)
}

#[test]
fn lists_every_required_key() {
    let all: String = table_rows()
        .iter()
        .map(|(k, w)| format!("{k} {w}\n"))
        .collect();
    for needle in [
        "Tab",
        "Shift+Tab",
        "PgUp",
        "PgDn",
        "Home",
        "End",
        "z",
        "?",
        "q",
        "Ctrl+C",
        "Ctrl+O",
        "Ctrl+F",
        "Ctrl+J",
        "Alt+Enter",
        "Ctrl+G",
        "Ctrl+U",
        "1–9",
        "F1",
        "Enter",
        "Shift+Enter",
        "Ctrl+S",
        "Ctrl+X",
        "y / n",
        "Ctrl+Z",
        "Typing",
        "Deciding",
        "Panes",
        "Confirming",
    ] {
        assert!(all.contains(needle), "missing {needle}");
    }
}

#[test]
fn overlay_is_centered_and_covers_what_is_beneath() {
    let text = screen(120, 40);
    let overlay = area(Rect::new(0, 0, 120, 40), &table_rows());
    assert_eq!(overlay.x, (120 - overlay.width) / 2);
    assert_eq!(overlay.y, (40 - overlay.height) / 2);
    assert!(text.contains("steer the running turn"), "{text}");
    let row: String = text
        .lines()
        .nth(usize::from(overlay.y) + 1)
        .unwrap()
        .to_string();
    let inside: String = row
        .chars()
        .skip(usize::from(overlay.x))
        .take(usize::from(overlay.width))
        .collect();
    assert!(!inside.contains('#'), "{inside:?}");
}

#[test]
fn a_narrow_screen_wraps_descriptions_instead_of_cutting_them() {
    let list = table_rows();
    let out = screen(70, 480);
    let flat: String = out
        .lines()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' ' || c == '#'))
        .collect::<Vec<_>>()
        .join(" ");
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    for (keys, what) in list.iter().filter(|(k, _)| !k.is_empty()) {
        let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&what), "{keys}: {what:?} not whole in\n{out}");
    }
    assert!(
        rows(70, &list) > list.len(),
        "something wrapped at 70 columns"
    );
}

#[test]
fn fits_in_a_small_terminal() {
    let overlay = area(Rect::new(0, 0, 20, 5), &table_rows());
    assert_eq!((overlay.width, overlay.height), (20, 5));
    let _ = screen(20, 5); // must not panic
}

#[test]
fn snapshot_80x24() {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|f| {
            render(
                f.area(),
                f.buffer_mut(),
                &Theme::default(),
                0,
                &table_rows(),
            )
        })
        .unwrap();
    insta::assert_snapshot!(terminal.backend());
}
