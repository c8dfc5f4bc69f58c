//! The key list (F1, or `?` in the panes): every key of every mode, centered over the screen.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::ui::theme::Theme;
use gobare_api::text;

/// Every key of every mode, as (keys, what they do); a row with empty keys heads a mode.
/// The single list the overlay and the README show; keep it in step with `app::keys`.
pub(crate) const KEYS: &[(&str, &str)] = &[
    ("", "Everywhere"),
    ("Tab / Shift+Tab", "next / previous: box → decision → panes"),
    ("PgUp PgDn, wheel", "scroll (the transcript while typing)"),
    ("F1", "this list"),
    (
        "Ctrl+C",
        "quit (asks if a turn runs, a decision or draft waits)",
    ),
    ("Ctrl+R", "re-read; when reconnecting: reconnect now"),
    ("Ctrl+O", "the fleet (every session, live)"),
    ("Ctrl+Z", "suspend (resume with fg)"),
    ("", "Typing (the input box): every other key is text"),
    ("Enter", "send (answers a waiting question / function call)"),
    (
        "Alt+Enter / Ctrl+J",
        "new line (Shift+Enter where reported)",
    ),
    ("↑ ↓ at the edge", "earlier / later messages you sent"),
    ("Ctrl+S", "steer the running turn"),
    ("Ctrl+X", "cancel the running turn (asks first)"),
    ("Ctrl+T", "add the text as context (starts no turn)"),
    ("Esc", "to the panes"),
    ("", "Deciding (Tab while the agent waits on you)"),
    ("y / n", "approve / deny (sensitive: y asks once more)"),
    ("1–9, ↑ ↓ + Enter", "pick a question's option"),
    ("Enter", "answer with the box's text"),
    ("f / Ctrl+F", "report the function call failed"),
    ("Esc", "back to typing"),
    ("", "Panes"),
    ("↑ ↓ j k", "select (Transcript, Events) / scroll the others"),
    ("[ ] · !", "previous / next turn · next error"),
    ("Home End g G", "top / follow the bottom"),
    (
        "z · m · ?",
        "zoom · mouse capture (off: select text) · keys",
    ),
    ("d", "Events: text deltas"),
    ("/ · n N", "search the whole session · older / newer match"),
    (
        "e / Enter",
        "expand / collapse the selected (or nearest) entry",
    ),
    ("Enter on an event", "inspect its whole JSON"),
    ("c · o", "copy the selected entry (OSC 52) · open its link"),
    ("p", "publish / unpublish the preview (asks first)"),
    ("s", "shell: ssh into the workspace ([shell] in config)"),
    ("x", "export the session as Markdown to a new file here"),
    ("a", "artifacts: Enter open · s save · S all · t turn's tar"),
    ("f", "workspace files: Enter open · / find · r new snapshot"),
    ("q", "quit (asks as Ctrl+C does)"),
    ("Esc", "clear the selection, then back to typing"),
    ("i / Enter", "back to typing (Enter: nothing selected)"),
    ("", "Confirming (a question in the input area)"),
    ("y / Enter", "yes (Ctrl+C too, when quitting)"),
    ("n / Esc", "no"),
    ("", "Search (/ in the panes)"),
    (
        "letters, Backspace",
        "the query, searched as typed (Events: types too)",
    ),
    ("type:NAME", "filter the Events pane by type instead"),
    ("↑ ↓", "newer / older match"),
    ("Enter · Esc", "keep the search (n N step) · end it"),
    ("", "Artifacts (a) and files (f) over the panes"),
    (
        "↑ ↓ j k, Enter",
        "move · open (Esc in a file: back to the list)",
    ),
    ("y / n", "overwrite an existing file / keep it"),
    ("Esc / q", "close"),
    ("", "This list"),
    ("↑ ↓ j k, PgUp PgDn", "scroll"),
    ("Esc / F1 / ? / q", "close"),
    ("", "Fleet (Ctrl+O): letters are commands"),
    ("↑ ↓ j k, Home End", "move (stays on its session)"),
    ("Enter", "open the session; Ctrl+O comes back"),
    ("n", "create a session and open it"),
    ("r", "rename: type the title, Enter saves"),
    ("d · f", "delete · fork (each asks y / n first)"),
    ("/", "filter: typed text is text, Esc clears"),
    ("q", "leave"),
];

const TITLE: &str = " Keys · Esc or F1 to close ";
/// When the list is taller than the screen.
const TITLE_MORE: &str = " Keys · ↑↓ PgUp PgDn more · Esc close ";

/// The widest key column and the list's natural width (every description on one line).
fn natural_widths() -> (usize, usize) {
    let key_w = KEYS.iter().map(|(k, _)| text::width(k)).max().unwrap_or(0);
    let what_w = KEYS.iter().map(|(_, w)| text::width(w)).max().unwrap_or(0);
    (key_w, (key_w + 2 + what_w + 4).max(text::width(TITLE) + 2))
}

/// The list's rows at an overlay `width`: a description too long for its column wraps
/// under itself rather than being cut.
fn lines(width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let (key_w, _) = natural_widths();
    // Inside the border: one space, the keys, two spaces, the description.
    let what_w = usize::from(width).saturating_sub(2 + 1 + key_w + 2).max(8);
    let indent = " ".repeat(1 + key_w + 2);
    let mut out = Vec::with_capacity(KEYS.len());
    for (keys, what) in KEYS {
        if keys.is_empty() {
            out.push(Line::from(Span::styled(format!(" {what}"), theme.title)));
            continue;
        }
        let pad = " ".repeat(key_w - text::width(keys));
        for (i, part) in text::wrap(what, what_w).into_iter().enumerate() {
            let lead = if i == 0 {
                Span::styled(format!(" {keys}{pad}  "), theme.key_hint)
            } else {
                Span::raw(indent.clone())
            };
            out.push(Line::from(vec![lead, Span::styled(part, theme.text)]));
        }
    }
    out
}

/// Rows of the list at an overlay `width` (what scrolling can reach).
pub(crate) fn rows(width: u16) -> usize {
    lines(width, &Theme::no_color()).len()
}

/// The overlay's width in `area`: the list's natural width, clipped.
pub(crate) fn overlay_width(area: Rect) -> u16 {
    let (_, natural) = natural_widths();
    u16::try_from(natural).unwrap_or(u16::MAX).min(area.width)
}

/// The overlay's rectangle: the list's natural size, centered, clipped to `area` (what
/// [`render`] draws into).
#[cfg(test)]
fn area(area: Rect) -> Rect {
    let width = overlay_width(area);
    placed(area, width, rows(width))
}

/// The overlay of `width` holding `rows` list rows, centered in `area`.
fn placed(area: Rect, width: u16, rows: usize) -> Rect {
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX).min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Draws the help overlay centered in `area`, clearing what is beneath it.
/// `scroll` rows of the list are skipped (clamped so the last row can reach the bottom).
pub(crate) fn render(area: Rect, buf: &mut Buffer, theme: &Theme, scroll: u16) {
    let width = overlay_width(area);
    let lines = self::lines(width, theme);
    let overlay = placed(area, width, lines.len());
    let room = usize::from(overlay.height.saturating_sub(2));
    let skip = usize::from(scroll).min(lines.len().saturating_sub(room));
    let more = lines.len() > room;
    let lines: Vec<Line<'static>> = lines.into_iter().skip(skip).collect();
    let title = if more { TITLE_MORE } else { TITLE };
    Clear.render(overlay, buf);
    Paragraph::new(lines)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border_focused)
                .title(Span::styled(title, theme.title)),
        )
        .render(overlay, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(width: u16, height: u16) -> String {
        let rect = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(rect);
        // Something underneath that the overlay must hide.
        for y in 0..height {
            buf.set_string(0, y, "#".repeat(usize::from(width)), theme_text());
        }
        render(rect, &mut buf, &Theme::default(), 0);
        (0..height)
            .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn theme_text() -> ratatui::style::Style {
        Theme::default().text
    }

    #[test]
    fn lists_every_required_key() {
        let all: String = KEYS.iter().map(|(k, w)| format!("{k} {w}\n")).collect();
        for needle in [
            "Tab",
            "Shift+Tab",
            "PgUp",
            "PgDn",
            "Home",
            "End",
            "wheel",
            "z",
            "?",
            "q",
            "Ctrl+C",
            "Ctrl+O",
            "Ctrl+F",
            "Ctrl+J",
            "Alt+Enter",
            "1–9",
            "F1",
            "m",
            "d",
            "/",
            "e",
            "p",
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
        let text = screen(100, 40);
        let overlay = area(Rect::new(0, 0, 100, 40));
        assert_eq!(overlay.x, (100 - overlay.width) / 2);
        assert_eq!(overlay.y, (40 - overlay.height) / 2);
        assert!(
            text.contains(" Ctrl+S              steer the running turn"),
            "{text}"
        );
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
        assert!(row.starts_with('#'), "outside the overlay stays: {row:?}");
    }

    #[test]
    fn a_narrow_screen_wraps_descriptions_instead_of_cutting_them() {
        let out = screen(70, 200);
        let flat: String = out
            .lines()
            .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
            .collect::<Vec<_>>()
            .join(" ");
        let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
        for (keys, what) in KEYS.iter().filter(|(k, _)| !k.is_empty()) {
            assert!(flat.contains(what), "{keys}: {what:?} not whole in\n{out}");
        }
        assert!(rows(70) > KEYS.len(), "something wrapped at 70 columns");
    }

    #[test]
    fn fits_in_a_small_terminal() {
        let overlay = area(Rect::new(0, 0, 20, 5));
        assert_eq!((overlay.width, overlay.height), (20, 5));
        let _ = screen(20, 5); // must not panic
    }

    #[test]
    fn snapshot_80x24() {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
        terminal
            .draw(|f| render(f.area(), f.buffer_mut(), &Theme::default(), 0))
            .unwrap();
        insta::assert_snapshot!(terminal.backend());
    }
}
