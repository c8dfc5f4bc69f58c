//! Snapshots of every pane in its interesting states, built from the documented example
//! events, plus layout and scrolling behaviour.

use super::layout::{Areas, LayoutSpec, areas};
use super::pane::Pane;
use super::screen::Screen;
use super::theme::Theme;
use crate::session::workspace::SandboxUsage;
use crate::session::{Session, Update};
use gobare_api::model::{EVENT_TYPES, Event, Session as ApiSession, Turn, Usage, WorkspaceState};
use gobare_api::stream::ConnectionState;
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::{Value, json};

mod looking;
mod policy_overlays;
mod policy_views;
mod themes;
mod vocabulary;

pub(super) fn examples() -> Value {
    serde_json::from_str(include_str!("../../assets/event-payloads.json")).unwrap()
}

pub(super) fn example(kind: &str) -> Event {
    Event::parse(&examples()[kind].to_string()).unwrap()
}

pub(super) fn ev(kind: &str, seq: Option<u64>, payload: Value) -> Event {
    let env = json!({"type": kind, "seq": seq, "created_at": 1_789_319_090_000i64 + seq.unwrap_or(0) as i64 * 1000, "payload": payload});
    Event::parse(&env.to_string()).unwrap()
}

pub(super) fn view() -> Session {
    let mut v =
        Session::new("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af").with_origin("api.gobare.dev", false);
    v.apply(Update::Connection(ConnectionState::Live));
    v
}

pub(super) fn apply(v: &mut Session, events: impl IntoIterator<Item = Event>) {
    for e in events {
        v.apply(Update::Event(e));
    }
}

pub(super) fn turn(status: &str, error: Value) -> Turn {
    serde_json::from_value(json!({
        "id": "turn_1bdef0a94c2e47f3", "session_id": "s", "status": status,
        "created_at": 1_789_319_089_000i64, "started_at": 1_789_319_090_000i64,
        "completed_at": if status == "working" { Value::Null } else { json!(1_789_319_215_000i64) },
        "artifacts": if status == "working" { Value::Null } else { json!("ready") },
        "error": error
    }))
    .unwrap()
}

pub(super) fn render(v: &Session, ui: &mut Screen, w: u16, h: u16) -> String {
    render_in(v, ui, w, h, &Theme::no_color())
        .backend()
        .to_string()
}

/// The screen drawn in `theme`, symbols and styles.
pub(super) fn render_in(
    v: &Session,
    ui: &mut Screen,
    w: u16,
    h: u16,
    theme: &Theme,
) -> Terminal<TestBackend> {
    // The titles and hints the app draws from its key table.
    let situation = crate::keys::table::Situation {
        waiting: !v.actions().nothing_listed(),
        running: v.turn_running(),
        decision: crate::keys::decision::Decision::of(v.actions()),
        ..Default::default()
    };
    ui.set_mode_title(crate::keys::table::mode_title(
        ui.mode(),
        ui.focus().title(),
        situation,
    ));
    let (hint, panes) = crate::keys::table::status_hint(ui.mode(), ui.focus().title());
    ui.set_status_hint(hint, panes);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| ui.draw(f, v, theme, None)).unwrap();
    term
}

/// The screen with `pane` having the keys (pane navigation).
pub(super) fn navigating(pane: Pane) -> Screen {
    let mut screen = Screen::new();
    screen.navigate(pane);
    screen
}

pub(super) fn zoomed(pane: Pane) -> Screen {
    let mut screen = navigating(pane);
    screen.set_zoomed(true);
    screen
}

pub(super) fn layout(w: u16, h: u16, focus: Pane, zoomed: bool) -> Areas {
    areas(
        Rect::new(0, 0, w, h),
        &mut LayoutSpec {
            focus,
            zoomed,
            typing: false,
            composer_height: 3,
            rows_wanted: &mut |_, _| None,
        },
    )
}

/// One full session: every example event in §8 order.
pub(super) fn full_session() -> Session {
    let mut v = view();
    apply(&mut v, EVENT_TYPES.iter().map(|k| example(k)));
    v
}

#[test]
pub(super) fn empty_session() {
    assert_snapshot!(render(&view(), &mut Screen::new(), 100, 30));
}

#[test]
pub(super) fn a_server_never_reached_is_not_shown_as_an_empty_session() {
    let mut v = Session::new("sess_1").with_origin("api.example.test", false);
    let retrying = |reason: &str| {
        Update::Connection(ConnectionState::Retrying {
            in_ms: 4000,
            attempt: 3,
            reason: reason.into(),
        })
    };
    // The first attempt under way: nothing to say yet either way.
    v.apply(Update::Connection(ConnectionState::Connecting {
        attempt: 1,
    }));
    assert!(!render(&v, &mut Screen::new(), 100, 30).contains("Cannot reach"));
    v.apply(retrying("network error: connection refused\x1b[31m"));
    let out = render(&v, &mut Screen::new(), 100, 30);
    assert!(
        out.contains("Cannot reach api.example.test: nothing has loaded yet."),
        "{out}"
    );
    assert!(out.contains("connection refused"), "{out}");
    assert!(!out.contains("No messages yet"), "{out}");
    // Once the server answered, an empty transcript is an empty session, even through
    // later drops.
    v.apply(Update::Connection(ConnectionState::Live));
    v.apply(retrying("the server closed the stream"));
    let out = render(&v, &mut Screen::new(), 100, 30);
    assert!(out.contains("No messages yet"), "{out}");
    assert!(!out.contains("Cannot reach"), "{out}");
}

#[test]
pub(super) fn wide_layout_160x48() {
    let mut v = full_session();
    v.apply(Update::Turn(turn("completed", Value::Null)));
    let artifact = serde_json::from_value(json!({"id": "art_6f2a9c41", "turn_id": "turn_1bdef0a94c2e47f3", "path": "/workspace/outputs/report.md", "size_bytes": 482})).unwrap();
    v.apply(Update::Artifacts(vec![artifact]));
    let out = render(&v, &mut Screen::new(), 160, 48);
    assert!(out.contains("artifacts: ready · 1 file"));
    assert_snapshot!(out);
}

#[test]
pub(super) fn narrow_terminal_60x20_shows_the_focused_pane_with_tabs() {
    let v = full_session();
    let mut ui = navigating(Pane::Events);
    let out = render(&v, &mut ui, 60, 20);
    assert!(
        out.contains("Transcript") && out.contains("Workspace"),
        "tab strip"
    );
    assert_snapshot!(out);
}

#[test]
pub(super) fn reconnecting_status_bar_keeps_the_screen() {
    let mut v = full_session();
    let before = render(&v, &mut Screen::new(), 120, 30);
    v.apply(Update::Connection(ConnectionState::Retrying {
        in_ms: 2500,
        attempt: 2,
        reason: "eof".into(),
    }));
    v.apply(Update::Skipped {
        reason: "bad json".into(),
    });
    let after = render(&v, &mut Screen::new(), 120, 30);
    let body = |s: &str| s.lines().take(26).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(body(&before), body(&after), "a reconnect clears nothing");
    let footer = after.lines().last().unwrap().to_string();
    assert!(footer.contains("reconnecting in 3 s") && footer.contains("1 skipped"));
    assert_snapshot!(footer);
}

#[test]
pub(super) fn the_status_bar_says_a_silent_stream_and_a_wait_for_the_budget() {
    let mut v = Session::new("s1").with_origin("api.example", false);
    v.apply(Update::Tick(1_000_000));
    v.apply(Update::Connection(ConnectionState::Open {
        silent_before: 0,
    }));
    v.set_stream_silence(Some(1_000_000 - 5_000), false);
    let footer = |v: &Session| {
        let out = render(v, &mut Screen::new(), 120, 30);
        out.lines().last().unwrap().to_string()
    };
    let quiet = footer(&v);
    assert!(
        quiet.starts_with("◌ connected │") || quiet.contains("◌ connected │"),
        "{quiet}"
    );
    assert!(!quiet.contains("live"), "{quiet}");
    v.apply(Update::Connection(ConnectionState::Open {
        silent_before: 2,
    }));
    v.set_stream_silence(Some(1_000_000 - 90_000), true);
    let silent = footer(&v);
    assert!(
        silent
            .contains("◌ connected, nothing received for 1m 30s · reading the session every 15 s"),
        "{silent}"
    );
    v.apply(Update::Connection(ConnectionState::Retrying {
        in_ms: 5_000,
        attempt: 3,
        reason: "no data for 45s".into(),
    }));
    let between = footer(&v);
    assert!(
        between.contains("reconnecting in 5 s · Ctrl+R now · reading the session every 15 s"),
        "{between}"
    );
    v.set_budget_wait(Some(4));
    let waiting = footer(&v);
    assert!(
        waiting.contains("waiting 4 s for the request budget"),
        "{waiting}"
    );
}

#[test]
pub(super) fn events_pane_filters_and_hides_deltas() {
    let v = full_session();
    let mut ui = zoomed(Pane::Events);
    ui.set_hide_deltas(false);
    let all = render(&v, &mut ui, 100, 40);
    assert!(all.contains("agent.text") && all.contains("   4801 17:04:50 turn.started"));
    ui.set_hide_deltas(true);
    ui.events.set_filter("sandbox");
    let filtered = render(&v, &mut ui, 100, 10);
    assert!(!filtered.contains("agent.text") && filtered.contains("sandbox.paused"));
    assert_snapshot!(filtered);
}

#[test]
pub(super) fn status_bar_marks_a_local_demo_and_a_failed_stream() {
    let mut v = Session::new("s1").with_origin("127.0.0.1:7777", true);
    v.apply(Update::Connection(ConnectionState::Failed {
        reason: "401 authentication_error".into(),
    }));
    let out = render(&v, &mut Screen::new(), 120, 30);
    let footer = out.lines().last().unwrap();
    assert!(
        footer.contains("✗ failed: 401 authentication_error · Ctrl+R retries"),
        "{footer}"
    );
    assert!(footer.contains("127.0.0.1:7777 │ local demo"), "{footer}");
    assert!(
        !footer.contains("seq"),
        "no seq before the first persisted event"
    );
}

#[test]
pub(super) fn any_size_draws_without_panicking() {
    let mut v = full_session();
    v.apply(Update::Event(ev(
        "agent.text",
        None,
        json!({"delta": "wide 漢字 text"}),
    )));
    for (w, h) in [
        (1, 1),
        (2, 3),
        (10, 4),
        (20, 6),
        (79, 23),
        (80, 24),
        (139, 40),
        (140, 40),
        (300, 100),
    ] {
        for pane in Pane::ALL {
            for zoom in [false, true] {
                let mut ui = navigating(pane);
                ui.set_zoomed(zoom);
                render(&v, &mut ui, w, h);
                ui.scroll(None, -7);
                render(&v, &mut ui, w, h);
                ui.scroll(None, 3);
                render(&v, &mut ui, w, h);
            }
        }
    }
}

#[test]
pub(super) fn config_warnings_stay_on_top_of_a_session_with_history_one_a_line() {
    let warnings: Vec<String> = (1..=4)
        .map(|n| format!("unknown key k{n} in [keys]"))
        .collect();
    let mut v = view().with_config_warnings(warnings[..2].to_vec());
    apply(
        &mut v,
        [ev("agent.message", Some(3), json!({"text": "hello there"}))],
    );
    let out = render(&v, &mut zoomed(Pane::Transcript), 60, 12);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[2].contains("warning: unknown key k1 in [keys]"),
        "{out}"
    );
    assert!(
        lines[3].contains("warning: unknown key k2 in [keys]"),
        "{out}"
    );
    assert!(out.contains("hello there"), "{out}");
    // More than three: the third row says how many more.
    let mut v = view().with_config_warnings(warnings);
    apply(
        &mut v,
        [ev("agent.message", Some(3), json!({"text": "hi"}))],
    );
    let out = render(&v, &mut zoomed(Pane::Transcript), 70, 12);
    assert!(
        out.contains("k2 in [keys]") && !out.contains("k3 in [keys]"),
        "{out}"
    );
    assert!(out.contains("… and 2 more config warnings"), "{out}");
}

#[test]
pub(super) fn a_long_config_warning_is_wrapped_whole_not_cut_at_the_pane() {
    let warning = "[theme] name = \"solarised\" is not a theme (dark, light, high-contrast, colour-blind): using dark".to_string();
    let mut v = view().with_config_warnings(vec![warning]);
    apply(
        &mut v,
        [ev("agent.message", Some(3), json!({"text": "hello there"}))],
    );
    for (w, h) in [(40, 15), (160, 48)] {
        let out = render(&v, &mut Screen::new(), w, h);
        // Cut at the pane's edge, "using …" never showed.
        assert!(out.contains("using"), "{w}x{h}:\n{out}");
        insta::assert_snapshot!(format!("config_warning_wrapped_{w}x{h}"), out);
    }
}

#[test]
pub(super) fn areas_adapt_to_the_terminal() {
    let wide = layout(160, 48, Pane::Transcript, false);
    assert_eq!(wide.panes.len(), 4);
    assert_eq!(wide.footer, Rect::new(0, 47, 160, 1));
    assert_eq!(wide.composer, Rect::new(0, 44, 160, 3));
    let (_, tr) = wide.panes[0];
    let (_, ev) = wide.panes[1];
    assert!(
        tr.x < ev.x && tr.width > ev.width,
        "transcript left, larger"
    );
    let medium = layout(100, 30, Pane::Transcript, false);
    assert!(medium.panes[0].1.y < medium.panes[1].1.y, "stacked");
    let small = layout(60, 20, Pane::Transcript, false);
    assert_eq!(small.panes.len(), 1);
    assert!(small.tabs.is_some());
    let z = layout(160, 48, Pane::Events, true);
    assert_eq!(z.panes, vec![(Pane::Events, Rect::new(0, 0, 160, 44))]);
}

/// The status bar colours a notice by how much it matters: an error is red, progress is not.
#[test]
pub(super) fn notices_are_coloured_by_severity() {
    use crate::session::{Notice, Severity};
    let theme = Theme::default();
    let style_of = |severity: Severity| {
        let mut v = view();
        v.apply(Update::Notice(Some(Notice::new(severity, "NOTICE-TEXT"))));
        let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
        term.draw(|f| Screen::new().draw(f, &v, &theme, None))
            .unwrap();
        let buf = term.backend().buffer().clone();
        let row = buf.area.height - 1;
        let x = (0..buf.area.width)
            .find(|&x| {
                (0..6).all(|i| {
                    x + i < buf.area.width
                        && buf[(x + i, row)].symbol() == &"NOTICE"[i as usize..][..1]
                })
            })
            .expect("notice on the status bar");
        buf[(x, row)].fg
    };
    assert_eq!(style_of(Severity::Error), theme.error.fg.unwrap());
    assert_eq!(style_of(Severity::Warn), theme.warning.fg.unwrap());
    assert_eq!(style_of(Severity::Info), theme.accent.fg.unwrap());
    assert_ne!(style_of(Severity::Info), style_of(Severity::Error));
}

/// One thing looks focused at a time: while the input box takes the typing, no pane's
/// border is highlighted; when a pane has the keys, its border is.
#[test]
pub(super) fn pane_border_highlight_follows_where_the_keys_go() {
    let theme = Theme::default();
    let highlighted = |input_focused: bool| {
        let mut ui = if input_focused {
            Screen::new()
        } else {
            navigating(Pane::Transcript)
        };
        let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
        term.draw(|f| ui.draw(f, &full_session(), &theme, None))
            .unwrap();
        let buf = term.backend().buffer().clone();
        let input_top = usize::from(ui.areas().unwrap().composer.y);
        // The top-left corner of every pane (the input box below them is not one).
        buf.content()
            .iter()
            .take(input_top * usize::from(buf.area.width))
            .filter(|c| c.symbol() == "┌")
            .filter(|c| c.fg == theme.border_focused.fg.unwrap())
            .count()
    };
    assert_eq!(highlighted(false), 1, "the focused pane");
    assert_eq!(highlighted(true), 0, "the input box has the keys");
}

/// With room (the Events pane zoomed), every type name fits its column: the summaries of a
/// short and of the longest type start in the same column.
#[test]
pub(super) fn wide_events_pane_aligns_even_the_longest_type() {
    let mut v = view();
    apply(
        &mut v,
        [
            example("user.message"),
            example("workspace.recovery_failed"),
        ],
    );
    let screen = render(&v, &mut zoomed(Pane::Events), 160, 20);
    let column_after = |kind: &str| {
        let line = screen.lines().find(|l| l.contains(kind)).expect(kind);
        let chars: Vec<char> = line.chars().collect();
        let start = line[..line.find(kind).unwrap()].chars().count() + kind.chars().count();
        start + chars[start..].iter().take_while(|c| **c == ' ').count()
    };
    assert_eq!(
        column_after("workspace.recovery_failed"),
        column_after("user.message"),
        "{screen}"
    );
}

/// Every mode as it looks with an approval waiting: the input area says which mode has the
/// keys and what they do.
#[test]
pub(super) fn every_mode_shows_itself_and_its_keys() {
    use crate::keys::mode::{Confirm, Mode};
    let mut v = view();
    apply(
        &mut v,
        [ev(
            "approval.requested",
            Some(1),
            json!({"toolCallId": "call_1", "name": "bash",
                   "args": {"command": "systemctl restart export-worker --no-block"},
                   "sensitive": true}),
        )],
    );
    let listed: gobare_api::model::RequiredAction = serde_json::from_value(json!({
        "type": "approval", "turn_id": "turn_1", "call_id": "call_1", "name": "bash",
        "arguments": {"command": "systemctl restart export-worker --no-block"}
    }))
    .unwrap();
    v.actions_mut().replace(&[listed]);
    let modes = [
        ("typing", Mode::Typing),
        ("navigating", Mode::Navigating),
        ("deciding", Mode::Deciding),
        (
            "confirming",
            Mode::Confirming(Confirm::ApproveSensitive {
                call_id: "call_1".into(),
            }),
        ),
        ("help", Mode::Help),
        ("search", Mode::Search),
    ];
    for (name, mode) in modes {
        let mut screen = Screen::new();
        screen.composer.set_text("a draft");
        if mode == Mode::Search {
            screen.search.start("type:sandbox");
        }
        let title = crate::keys::table::mode_title(
            &mode,
            screen.focus().title(),
            crate::keys::table::Situation {
                waiting: true,
                ..Default::default()
            },
        );
        screen.modes.set_for_test(mode);
        screen.set_mode_title(title);
        let out = render(&v, &mut screen, 100, 30);
        insta::assert_snapshot!(format!("mode_{name}"), out);
    }
}

/// A settled turn resource with its own id, start and end.
pub(super) fn settled(
    id: &str,
    status: &str,
    started: Option<i64>,
    ran_ms: i64,
    error: Value,
) -> Turn {
    let created = 1_789_319_000_000i64;
    serde_json::from_value(json!({
        "id": id, "session_id": "s", "status": status, "created_at": created,
        "started_at": started, "completed_at": started.unwrap_or(created) + ran_ms,
        "artifacts": "ready", "error": error
    }))
    .unwrap()
}

#[test]
pub(super) fn an_overlay_covers_the_panes_and_closing_it_gives_the_keys_back() {
    let v = full_session();
    let mut screen = navigating(Pane::Events);
    let pager = crate::ui::overlays::pager::Pager::plain(
        "report.md",
        "# Findings\nall good",
        &Theme::default(),
    );
    screen.open_overlay(Box::new(pager));
    assert_eq!(*screen.mode(), crate::keys::mode::Mode::Overlay);
    let out = render(&v, &mut screen, 100, 30);
    assert!(
        out.contains("report.md") && out.contains("# Findings"),
        "{out}"
    );
    assert!(!out.contains(" Events "), "the panes are under it:\n{out}");
    screen.close_overlay();
    assert_eq!(
        *screen.mode(),
        crate::keys::mode::Mode::Navigating,
        "back to the mode it opened from"
    );
    assert!(render(&v, &mut screen, 100, 30).contains(" Events "));
}

/// A session mid-way through its third turn: two settled turns before it, a long todo list
/// a few items in, a tool running, a message queued, the repo on a branch, the preview
/// published, and usage read.
pub(super) fn busy_session() -> Session {
    let mut v = view();
    let mut s: ApiSession = serde_json::from_value(examples()["session"].clone()).unwrap();
    s.environment.state = Some(WorkspaceState::Running);
    s.environment.repo = Some(
        serde_json::from_value(
            json!({"full_name": "acme/billing", "branch": "ledger-migration", "clone_error": null}),
        )
        .unwrap(),
    );
    s.preview = serde_json::from_value(json!({
        "url": "https://p-4f1c8e02a7b1.gobare.dev", "port": 3000,
        "published_url": "https://s-3f9c1b60.gobare.dev"
    }))
    .unwrap();
    v.apply(Update::Session(Box::new(s)));
    let t0 = 1_789_319_000_000i64;
    let turn_ev = |kind: &str, seq: u64, id: &str| ev(kind, Some(seq), json!({ "turnId": id }));
    let say = |seq: u64, text: &str| ev("user.message", Some(seq), json!({ "text": text }));
    let todos: Vec<Value> = (1..=19)
        .map(|i| {
            let status = if i <= 3 { "done" } else { "pending" };
            json!({"label": format!("Step {i}: move table {i} to the ledger"), "status": status})
        })
        .collect();
    apply(
        &mut v,
        [
            say(1, "Find why the nightly export fails on large accounts"),
            turn_ev("turn.started", 2, "t1"),
            turn_ev("turn.ended", 3, "t1"),
            say(4, "Roll the export back to v2.3.1"),
            turn_ev("turn.started", 5, "t2"),
            turn_ev("turn.ended", 6, "t2"),
            say(
                7,
                "Migrate billing to the new ledger and keep the old API working",
            ),
            turn_ev("turn.started", 8, "t3"),
            ev(
                "agent.tool_call",
                Some(9),
                json!({"toolCallId": "c1", "toolName": "bash", "args": {"command": "rg -l billing_"}}),
            ),
            ev(
                "agent.tool_result",
                Some(10),
                json!({"toolCallId": "c1", "toolName": "bash", "summary": "41 files"}),
            ),
            ev("agent.todos", Some(11), json!({ "items": todos })),
            ev(
                "agent.tool_call",
                Some(12),
                json!({"toolCallId": "c2", "toolName": "bash", "args": {"command": "cargo test -p ledger"}}),
            ),
            ev(
                "message.queued",
                Some(13),
                json!({"text": "Also update the changelog", "position": 1}),
            ),
        ],
    );
    v.apply(Update::Turn(settled(
        "t1",
        "completed",
        Some(t0),
        125_000,
        Value::Null,
    )));
    v.apply(Update::Turn(settled(
        "t2",
        "failed",
        Some(t0 + 200_000),
        9_000,
        json!({"code": "sandbox_error", "message": "workspace destroyed"}),
    )));
    let usage = |scope: &str, sessions: u32, sandbox: u64, chargeable: u64| Usage {
        session_id: "s".into(),
        scope: scope.into(),
        sessions,
        as_of: Some(1_789_876_543_210),
        sandbox_seconds: sandbox,
        chargeable_seconds: chargeable,
    };
    v.apply(Update::Usage(SandboxUsage {
        session: usage("session", 1, 812, 640),
        crew: None,
    }));
    v.apply(Update::Tick(1_789_319_098_000 + 95_000));
    v
}

#[test]
pub(super) fn the_short_panes_build_their_lines_once_per_frame() {
    let v = busy_session();
    let mut screen = Screen::new();
    for (frame, (w, h)) in [(160, 48), (100, 30)].into_iter().enumerate() {
        render(&v, &mut screen, w, h);
        let n = frame + 1;
        assert_eq!(screen.short_pane_builds(), (n, n), "at {w}x{h}");
    }
    render(&v, &mut screen, 60, 20);
    assert_eq!(
        screen.short_pane_builds(),
        (2, 2),
        "tabs: neither pane shown"
    );
}

/// The cells around an overlay: its one-cell margin (empty where there is none).
fn overlay_margin(out: &ratatui::buffer::Buffer) -> String {
    let area = out.area;
    let inner = crate::ui::overlays::area(area);
    let mut margin = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let inside =
                x >= inner.left() && x < inner.right() && y >= inner.top() && y < inner.bottom();
            if !inside {
                margin.push_str(out[(x, y)].symbol());
            }
        }
    }
    margin
}

#[test]
pub(super) fn an_overlay_leaves_no_piece_of_the_panes_borders_around_it() {
    let v = full_session();
    for (w, h) in [(40, 15), (160, 48)] {
        let mut screen = navigating(Pane::Events);
        let pager = crate::ui::overlays::pager::Pager::plain(
            "event 7",
            "{\"type\": \"turn.started\"}",
            &Theme::default(),
        );
        screen.open_overlay(Box::new(pager));
        let term = render_in(&v, &mut screen, w, h, &Theme::no_color());
        let margin = overlay_margin(term.backend().buffer());
        assert!(
            margin.chars().all(|c| c == ' '),
            "{w}x{h}: {margin:?}\n{}",
            term.backend()
        );
        insta::assert_snapshot!(
            format!("overlay_margin_{w}x{h}"),
            term.backend().to_string()
        );
    }
}

#[test]
pub(super) fn the_status_bar_names_an_untitled_session_by_its_first_message() {
    let mut v = view();
    let id = v.session_id().to_string();
    assert!(render(&v, &mut Screen::new(), 160, 48).contains(&id));
    v.apply(crate::session::Update::FirstMessage(Some(
        "Fix the nightly export".into(),
    )));
    let out = render(&v, &mut Screen::new(), 160, 48);
    let footer = out.lines().last().unwrap_or_default();
    assert!(footer.contains("Fix the nightly export"), "{footer}");
    assert!(!footer.contains(&id), "a bare id: {footer}");
}
