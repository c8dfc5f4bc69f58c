//! Hostile server text never reaches the terminal as anything but visible characters
//! (issue 6). Every example event, item, session and required action gets control
//! characters, CSI/OSC/DCS sequences, bidi overrides, zero-width characters and wide /
//! combining text in every free-text field; each pane, the prompt and the fleet are drawn
//! through the real crossterm backend into a byte buffer, and the assertions are on those
//! bytes and on what a terminal emulator (vt100) makes of them — not only on the buffer.

use crate::support::actions::PromptFixture;
use gobare_api::model::{Event, Item, RequiredAction, Session as ApiSession};
use gobare_api::stream::ConnectionState;
use gobare_tui::fleet::model::FleetModel;
use gobare_tui::session::{Notice, Session, Severity, Update};
use gobare_tui::ui::fleet::FleetView;
use gobare_tui::ui::theme::Theme;
use gobare_tui::ui::{Pane, Screen};
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde_json::{Value, json};

/// Each piece is something a terminal would act on if it arrived raw.
const ATTACKS: &[&str] = &[
    "\x1b[2J\x1b[H",                                         // clear screen, home
    "\x1b[?1049h",                                           // alternate screen
    "\x1b]52;c;aGFja2VkIGNsaXBib2FyZA==\x07",                // OSC 52 clipboard write
    "\x1b]0;owned title\x07",                                // OSC 0 title
    "\x1b]2;owned title\x1b\\",                              // OSC 2 title, ST
    "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\", // OSC 8 hyperlink
    "\x1bP+q544e\x1b\\",                                     // DCS
    "\u{9b}31m\u{9d}0;c1 title\u{9c}",                       // 8-bit CSI / OSC / ST (C1)
    "\x07\x08\x0b\x0c\r\x7f\0",                              // BEL BS VT FF CR DEL NUL
    "\u{202e}evil\u{202c}\u{2066}iso\u{2069}",               // bidi override / isolate
    "a\u{200b}b\u{200d}c\u{feff}d\u{2060}",                  // zero-width
    "漢字テスト",                                            // wide CJK
    "e\u{301}\u{302} n\u{303}",                              // combining marks
    "👩\u{200d}💻 ✅", // ZWJ emoji, wide emoji (flags are left out: terminals disagree on their width)
    "tab\there\nnew line",
];

fn hostile() -> String {
    ATTACKS.concat()
}

/// Identifiers and enum values stay as they are (they must still parse); every other
/// string gets the attacks appended, and objects gain a hostile key.
fn poison(v: &mut Value, key: &str) {
    const KEEP: &[&str] = &[
        "object",
        "type",
        "internal_type",
        "session_id",
        "id",
        "turnId",
        "turn_id",
        "toolCallId",
        "tool_call_id",
        "call_id",
        "changeType",
        "kind",
        "status",
        "state",
        "source",
        "event",
        "approval_mode",
        "decision",
        "outcome",
        "role",
        "artifacts",
        "model",
    ];
    match v {
        Value::String(s) if !KEEP.contains(&key) => s.push_str(&hostile()),
        Value::Array(a) => a.iter_mut().for_each(|x| poison(x, key)),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                poison(x, k);
            }
            if matches!(key, "args" | "arguments" | "detail" | "input") {
                o.insert(hostile(), Value::String(hostile()));
            }
        }
        _ => {}
    }
}

fn examples() -> Value {
    serde_json::from_str(include_str!("../../assets/event-payloads.json")).unwrap()
}

/// The hostile model: every example event (persisted ones with increasing seqs), an
/// unknown event type, the items, the session with a hostile title and required actions.
fn hostile_view() -> (Session, Vec<RequiredAction>, ApiSession) {
    let ex = examples();
    let mut view =
        Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af").with_origin("api.gobare.dev", false);
    view.apply(Update::Connection(ConnectionState::Retrying {
        in_ms: 2000,
        attempt: 2,
        reason: format!("server said {}", hostile()),
    }));
    let mut seq = 100;
    let mut applied = 0;
    for (kind, example) in ex.as_object().unwrap() {
        if example.get("object").and_then(Value::as_str) != Some("event") {
            continue;
        }
        let mut e = example.clone();
        poison(&mut e, "");
        if !e["seq"].is_null() {
            seq += 1;
            e["seq"] = json!(seq);
        }
        let ev = Event::parse(&e.to_string())
            .unwrap_or_else(|err| panic!("{kind} no longer parses: {err}"));
        view.apply(Update::Event(ev));
        applied += 1;
    }
    assert!(applied >= 28, "{applied} example events");
    // A type this client does not know, its payload hostile too.
    let unknown = json!({"object":"event","type": format!("evil.type{}", hostile()),
        "session_id":"s","seq": seq + 1, "created_at": 1, "payload": {"note": hostile(), hostile(): [hostile()]}});
    view.apply(Update::Event(Event::parse(&unknown.to_string()).unwrap()));
    // Backfilled items.
    let mut items = ex["items"].clone();
    poison(&mut items, "");
    let items: Vec<Item> = items
        .as_object()
        .unwrap()
        .values()
        .map(|i| serde_json::from_value(i.clone()).unwrap())
        .collect();
    view.apply(Update::Items(items));
    // The session: title, required actions with hostile arguments, hostile error items.
    let mut session = ex["session"].clone();
    session["title"] = json!(hostile());
    let actions: Vec<Value> = ["function_call", "approval", "question"]
        .iter()
        .enumerate()
        .map(|(i, kind)| {
            let mut a = ex["required_action"].clone();
            a["type"] = json!(kind);
            a["call_id"] = json!(format!("call_{i}"));
            poison(&mut a, "");
            a
        })
        .collect();
    session["required_actions"] = json!(actions);
    let session: ApiSession = serde_json::from_value(session).unwrap();
    let actions = session.required_actions.clone();
    view.apply(Update::Session(Box::new(session.clone())));
    view.apply(Update::Notice(Some(Notice::new(
        Severity::Error,
        format!("HTTP 500 {}", hostile()),
    ))));
    view.apply(Update::Skipped { reason: hostile() });
    (view, actions.to_vec(), session)
}

/// A `Write` that keeps what the backend wrote, readable after the draw.
#[derive(Clone, Default)]
struct Capture(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Draws one screen through the real crossterm backend and returns the bytes written,
/// plus the same draw on a `TestBackend` (what ratatui meant to show).
fn draw_bytes(
    w: u16,
    h: u16,
    mut paint: impl FnMut(&mut ratatui::Frame),
) -> (Vec<u8>, ratatui::buffer::Buffer) {
    let area = Rect::new(0, 0, w, h);
    let written = Capture::default();
    let mut real = Terminal::with_options(
        CrosstermBackend::new(written.clone()),
        TerminalOptions {
            viewport: Viewport::Fixed(area),
        },
    )
    .unwrap();
    real.draw(|f| paint(f)).unwrap();
    let bytes = written.0.borrow().clone();
    let mut test = Terminal::new(TestBackend::new(w, h)).unwrap();
    test.draw(|f| paint(f)).unwrap();
    (bytes, test.backend().buffer().clone())
}

/// Escape sequences the crossterm backend itself emits while drawing a frame.
fn is_ratatui_csi(params: &str, fin: char) -> bool {
    match fin {
        'H' | 'm' => params.bytes().all(|b| b.is_ascii_digit() || b == b';'),
        'l' | 'h' => params == "?25",
        _ => false,
    }
}

/// Every escape sequence in `bytes` is a cursor move, SGR or cursor show/hide; no other
/// control character (C0 or C1) appears at all.
fn assert_only_ratatui_sequences(bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).expect("the backend writes UTF-8");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            assert_eq!(chars.next(), Some('['), "only CSI sequences may be emitted");
            let mut params = String::new();
            let fin = loop {
                let p = chars.next().expect("a complete CSI sequence");
                if ('\x40'..='\x7e').contains(&p) {
                    break p;
                }
                params.push(p);
            };
            assert!(
                is_ratatui_csi(&params, fin),
                "unexpected sequence ESC[{params}{fin}"
            );
            continue;
        }
        let u = c as u32;
        assert!(
            u >= 0x20 && u != 0x7f && !(0x80..=0x9f).contains(&u),
            "raw control U+{u:04X} written to the terminal"
        );
        assert!(
            !matches!(u, 0x200b..=0x200f | 0x202a..=0x202e | 0x2066..=0x2069 | 0xfeff),
            "invisible/bidi U+{u:04X} written to the terminal"
        );
    }
}

/// Records everything a terminal would do besides drawing cells.
#[derive(Default)]
struct Observed {
    title: Vec<Vec<u8>>,
    clipboard: Vec<Vec<u8>>,
    bells: usize,
    other: Vec<String>,
}

impl vt100::Callbacks for Observed {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.title.push(name.to_vec());
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.title.push(title.to_vec());
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], data: &[u8]) {
        self.clipboard.push(data.to_vec());
    }
    fn unhandled_control(&mut self, _: &mut vt100::Screen, b: u8) {
        self.other.push(format!("control {b:#x}"));
    }
    fn unhandled_escape(&mut self, _: &mut vt100::Screen, i1: Option<u8>, i2: Option<u8>, b: u8) {
        self.other.push(format!("escape {i1:?} {i2:?} {b:#x}"));
    }
    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        self.other.push(format!("osc {params:?}"));
    }
}

/// Feeds the bytes to a terminal emulator and checks its state and every cell against
/// what ratatui meant: the same symbol in the same column, wide characters included.
fn assert_terminal_shows_the_buffer(bytes: &[u8], buffer: &ratatui::buffer::Buffer) {
    let area = buffer.area;
    let mut parser = vt100::Parser::new_with_callbacks(
        std::num::NonZero::new(area.height).unwrap(),
        std::num::NonZero::new(area.width).unwrap(),
        0,
        Observed::default(),
    );
    parser.process(bytes);
    let seen = parser.callbacks();
    assert!(seen.title.is_empty(), "title changed: {:?}", seen.title);
    assert!(seen.clipboard.is_empty(), "clipboard written");
    assert_eq!(seen.bells, 0, "bell rung");
    assert!(seen.other.is_empty(), "{:?}", seen.other);
    let screen = parser.screen();
    assert!(!screen.alternate_screen(), "alternate screen switched");
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let want = buffer[(x, y)].symbol();
            let got = screen.cell(y, x).expect("cell in range");
            let width = unicode_width::UnicodeWidthStr::width(want).max(1) as u16;
            let got_text = got.contents();
            let got_text = if got_text.is_empty() { " " } else { got_text };
            assert_eq!(
                got_text,
                want,
                "row {y} col {x}: terminal shows {got_text:?}, buffer has {want:?}\n{}",
                screen.contents()
            );
            if width == 2 {
                assert!(got.is_wide(), "row {y} col {x}: {want:?} is wide");
            }
            x += width;
        }
    }
}

/// The vertical borders of each pane are where the layout put them, on every row.
fn assert_borders_aligned(buffer: &ratatui::buffer::Buffer, panes: &[(Pane, Rect)]) {
    for (pane, r) in panes {
        for y in r.y + 1..r.y + r.height.saturating_sub(1) {
            for x in [r.x, r.x + r.width - 1] {
                let s = buffer[(x, y)].symbol();
                assert!(
                    matches!(s, "│" | "┃" | "║" | "╎" | "┆"),
                    "{pane:?}: row {y} col {x} is {s:?}, not a border"
                );
            }
        }
    }
}

fn layouts() -> Vec<(String, Screen)> {
    let mut out = vec![("all panes".to_string(), Screen::new())];
    for pane in Pane::ALL {
        let mut ui = Screen::new();
        ui.navigate(pane);
        ui.set_zoomed(true);
        if pane == Pane::Events {
            ui.set_hide_deltas(false);
        }
        out.push((format!("{pane:?} zoomed"), ui));
    }
    out
}

#[test]
fn every_pane_writes_only_inert_text_to_the_terminal() {
    let (view, _, _) = hostile_view();
    let theme = Theme::default();
    for (w, h) in [(160u16, 48u16), (100, 30), (61, 20)] {
        for (name, mut ui) in layouts() {
            ui.toggle_nearest_expandable(&view);
            let (bytes, buffer) = draw_bytes(w, h, |f| ui.draw(f, &view, &theme, None));
            assert_only_ratatui_sequences(&bytes);
            assert_terminal_shows_the_buffer(&bytes, &buffer);
            let panes = ui.areas().expect("drawn").panes.clone();
            assert_borders_aligned(&buffer, &panes);
            let text = format!("{buffer:?}");
            // At 61 columns the Workspace pane shows no server text with an escape, and the
            // status bar gives its room to the notice before the (hostile) session title.
            let shows_hostile_text = w >= 100 || name != "Workspace zoomed";
            assert!(
                !shows_hostile_text || text.contains('␛'),
                "{name} {w}x{h}: escapes are shown as ␛, visibly"
            );
        }
    }
}

#[test]
fn the_prompt_and_the_fleet_write_only_inert_text() {
    let (_, actions, session) = hostile_view();
    let theme = Theme::default();
    let mut prompt = prompt_for(&actions);
    for a in &actions {
        prompt.set_question_details(
            &a.call_id,
            &hostile(),
            vec![hostile(), format!("ok {}", hostile())],
            Some(true),
        );
        prompt.set_approval_details(&a.call_id, &hostile(), json!({hostile(): hostile()}), true);
    }
    assert!(!prompt.is_empty());
    let mut fleet = FleetModel::new();
    let mut other = session.clone();
    other.id = format!("id-{}", hostile());
    other.title = None;
    other.parent_session_id = Some(session.id.clone());
    fleet.apply_full_list(&[session, other.clone()]);
    fleet.set_first_message(&other.id, &hostile());
    fleet.set_note(Some(hostile()));
    let mut view = FleetView::new();
    for (w, h) in [(120u16, 30u16), (50, 16)] {
        let area = Rect::new(0, 0, w, h);
        let (bytes, buffer) = draw_bytes(w, h, |f| prompt.render(area, f.buffer_mut(), &theme));
        assert_only_ratatui_sequences(&bytes);
        assert_terminal_shows_the_buffer(&bytes, &buffer);
        let (bytes, buffer) = draw_bytes(w, h, |f| {
            view.render(area, f.buffer_mut(), &fleet, &theme, 1_789_319_090_000)
        });
        assert_only_ratatui_sequences(&bytes);
        assert_terminal_shows_the_buffer(&bytes, &buffer);
    }
}

#[test]
fn the_checks_catch_a_raw_escape() {
    // The assertions above are only worth something if they fail on raw text.
    let (bytes, buffer) = draw_bytes(20, 2, |f| {
        f.buffer_mut()[(0, 0)].set_symbol("\x1b]0;owned\x07");
    });
    let caught = std::panic::catch_unwind(|| assert_only_ratatui_sequences(&bytes));
    assert!(caught.is_err(), "a raw OSC must be caught");
    let caught = std::panic::catch_unwind(|| assert_terminal_shows_the_buffer(&bytes, &buffer));
    assert!(caught.is_err(), "vt100 must see the title change");
}

/// The prompt as the app builds it: empty, then the session's list of required actions.
fn prompt_for(actions: &[RequiredAction]) -> PromptFixture {
    PromptFixture::new(actions)
}
