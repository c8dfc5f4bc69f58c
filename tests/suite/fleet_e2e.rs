//! The fleet in a pty against the simulator: the waiting session first, Enter into a
//! session and Ctrl+O back to the same row; rename, delete and fork ask first, and a
//! refusal names the missing scope; sessions that come to need the user are announced,
//! also while another session is open in front.

use std::time::Duration;

use crate::support;
use crate::support::app::fleet_list_rows as list_rows;
use crate::support::app::{spawn, status_line};
use crate::support::live::wait_live;
use crate::support::sim::Sim;
use gobare_sim::{Faults, SimConfig};
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(40);

/// Three sessions: one waiting on an approval, two idle (the newer created last).
fn three_sessions() -> (Sim, [String; 3]) {
    let sim = support::sim::start(SimConfig::for_tests());
    let waits = sim.sim.create_session(Some("waits for you"));
    sim.within(|s| s.send_message(&waits, "restart the worker #approval"));
    let older = sim.sim.create_session(Some("older idle"));
    std::thread::sleep(Duration::from_millis(5));
    let newer = sim.sim.create_session(Some("newer idle"));
    (sim, [waits, older, newer])
}

fn selected_row(s: &vt100::Screen) -> String {
    list_rows(s)
        .into_iter()
        .find(|r| r.starts_with('›'))
        .unwrap_or_default()
}

fn wait_sorted(pty: &Pty) {
    pty.wait_for(
        "the fleet, the waiting session first, then by creation",
        |s| {
            let rows = list_rows(s);
            rows.len() == 3
                && rows[0].contains("waits for you")
                && rows[0].contains("needs you: approval")
                && rows[1].contains("older idle")
                && rows[2].contains("newer idle")
        },
        TIMEOUT,
    );
}

#[test]
fn the_waiting_session_comes_first_enter_opens_one_and_ctrl_o_returns_to_its_row() {
    let (sim, [_, _, newer]) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    assert!(pty.with_screen(|s| selected_row(s).contains("waits for you")));
    pty.send_keys(keys::DOWN);
    pty.send_keys(keys::DOWN);
    pty.wait_for(
        "the third row selected",
        |s| selected_row(s).contains("newer idle"),
        TIMEOUT,
    );
    let usage = format!("GET /v1/sessions/{newer}/usage");
    support::app::until(
        "the selected row's usage read",
        TIMEOUT,
        || sim.sim.requests().contains(&usage).then_some(()),
        || format!("{:#?}", sim.sim.requests()),
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the session open, live",
        |s| {
            let status = status_line(s);
            status.contains("● live") && status.contains("newer idle")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the fleet again, at the same row",
        |s| list_rows(s).len() == 3 && selected_row(s).contains("newer idle"),
        TIMEOUT,
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn rename_and_delete_ask_first_and_a_refusal_names_the_missing_scope() {
    let (sim, [waits, _, newer]) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    pty.send_keys("r");
    pty.wait_for_text("new title:", TIMEOUT);
    // Rename starts from the title as it is; Ctrl+U empties it.
    pty.wait_for_text("new title: waits for you", TIMEOUT);
    pty.send_keys("\x15");
    // Letters are text here: `d` and `q` neither delete nor quit.
    pty.send_keys("Restart approved? dq");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the new title",
        |s| list_rows(s)[0].contains("Restart approved? dq"),
        TIMEOUT,
    );
    let patches: Vec<String> = sim
        .sim
        .requests()
        .into_iter()
        .filter(|r| r.starts_with("PATCH"))
        .collect();
    assert_eq!(patches, [format!("PATCH /v1/sessions/{waits}")]);

    pty.send_keys("G");
    pty.wait_for(
        "the last row selected",
        |s| selected_row(s).contains("newer idle"),
        TIMEOUT,
    );
    sim.sim.set_faults(Faults {
        read_only_sessions: true,
        ..Faults::default()
    });
    pty.send_keys("d");
    pty.wait_for_text("hard-deleted with it", TIMEOUT);
    pty.send_keys("y");
    pty.wait_for(
        "the refusal, naming the scope",
        |s| s.contents().contains("could not delete") && s.contents().contains("sessions:write"),
        TIMEOUT,
    );
    assert_eq!(pty.with_screen(|s| list_rows(s).len()), 3);
    sim.sim.set_faults(Faults::default());
    pty.send_keys("d");
    pty.wait_for_text("hard-deleted with it", TIMEOUT);
    pty.send_keys("n");
    pty.wait_for(
        "kept",
        |s| !s.contents().contains("hard-deleted with it"),
        TIMEOUT,
    );
    pty.send_keys("d");
    pty.wait_for_text("hard-deleted with it", TIMEOUT);
    pty.send_keys("y");
    pty.wait_for(
        "the session gone from the fleet",
        |s| list_rows(s).len() == 2 && !s.contents().contains("newer idle"),
        TIMEOUT,
    );
    let deletes: Vec<String> = sim
        .sim
        .requests()
        .into_iter()
        .filter(|r| r.starts_with("DELETE"))
        .collect();
    assert_eq!(
        deletes,
        [
            format!("DELETE /v1/sessions/{newer}"),
            format!("DELETE /v1/sessions/{newer}")
        ],
        "the refused one, then the one confirmed; none for the one kept"
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

/// A home whose config file says `[notify] when = "always"`.
fn always_notifying_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[notify]\nwhen = \"always\"\n").unwrap();
    home
}

/// How often the app wrote the OSC 9 notification `gobare: {text}`.
fn osc9_count(bytes: &[u8], text: &str) -> usize {
    String::from_utf8_lossy(bytes)
        .matches(&format!("\x1b]9;gobare: {text}\x07"))
        .count()
}

fn raw_text(pty: &Pty) -> String {
    String::from_utf8_lossy(&pty.raw_bytes())
        .escape_debug()
        .to_string()
}

#[test]
fn fork_asks_first_then_the_new_session_appears_selected() {
    let (sim, [_, _, newer]) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    pty.send_keys("G");
    pty.wait_for(
        "the last row selected",
        |s| selected_row(s).contains("newer idle"),
        TIMEOUT,
    );
    let forks = || -> Vec<String> {
        sim.sim
            .requests()
            .into_iter()
            .filter(|r| r.ends_with("/fork"))
            .collect()
    };
    pty.send_keys("f");
    pty.wait_for_text("Fork “newer idle” into a new session", TIMEOUT);
    pty.send_keys("n");
    pty.wait_for(
        "cancelled",
        |s| !s.contents().contains("into a new session"),
        TIMEOUT,
    );
    assert_eq!(forks(), Vec::<String>::new(), "nothing forked on n");
    pty.send_keys("f");
    pty.wait_for_text("Fork “newer idle” into a new session", TIMEOUT);
    pty.send_keys("y");
    pty.wait_for(
        "the fork in the fleet, selected",
        |s| {
            let rows = list_rows(s);
            // The fork's own title says it is one: the two rows are told apart.
            rows.len() == 4
                && rows.iter().filter(|r| r.contains("newer idle")).count() == 2
                && selected_row(s).contains("newer idle (fork)")
                && s.contents()
                    .contains("forked as “newer idle (fork)”: the new session is selected")
        },
        TIMEOUT,
    );
    assert_eq!(forks(), [format!("POST /v1/sessions/{newer}/fork")]);
    let named = sim
        .sim
        .requests()
        .into_iter()
        .filter(|r| r.starts_with("PATCH /v1/sessions/"))
        .count();
    assert_eq!(named, 1, "the fork named once");
    // The selected row is the new session: Enter opens it, not the original.
    pty.send_keys(keys::ENTER);
    wait_live(&pty, TIMEOUT);
    let opened: Vec<String> = sim
        .sim
        .requests()
        .into_iter()
        .filter(|r| r.starts_with("GET /v1/sessions/") && r.contains("/events"))
        .collect();
    assert!(
        opened.iter().any(|r| !r.contains(&newer)),
        "a session other than the original streamed: {opened:#?}"
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn a_session_that_comes_to_need_you_is_announced_by_name_and_need() {
    let (sim, [_, _, newer]) = three_sessions();
    let home = always_notifying_home();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    let osc9 = |bytes: &[u8], text: &str| osc9_count(bytes, text) > 0;
    sim.within(|s| s.send_message(&newer, "which host? #question"));
    pty.wait_for(
        "the session waiting on its question",
        |s| {
            list_rows(s)
                .iter()
                .any(|r| r.contains("newer idle") && r.contains("needs you: question"))
        },
        TIMEOUT,
    );
    support::app::until(
        "the notification naming it",
        TIMEOUT,
        || osc9(&pty.raw_bytes(), "newer idle: needs you: question").then_some(()),
        || raw_text(&pty),
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn behind_an_open_session_the_fleet_still_announces_the_others_but_not_the_open_one_twice() {
    let (sim, [_, older, newer]) = three_sessions();
    let home = always_notifying_home();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    pty.send_keys(keys::DOWN);
    pty.wait_for(
        "the older idle session selected",
        |s| selected_row(s).contains("older idle"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the session open, live",
        |s| {
            let status = status_line(s);
            status.contains("● live") && status.contains("older idle")
        },
        TIMEOUT,
    );
    // The open session comes to need the user: its own notifier says so.
    sim.within(|s| s.send_message(&older, "restart it #approval"));
    support::app::until(
        "the open session's own notification",
        TIMEOUT,
        || {
            (osc9_count(&pty.raw_bytes(), "older idle: the agent asks for approval") > 0)
                .then_some(())
        },
        || raw_text(&pty),
    );
    // A session in the fleet behind it comes to need the user: the fleet says so.
    sim.within(|s| s.send_message(&newer, "which host? #question"));
    support::app::until(
        "the fleet's notification for the session behind",
        TIMEOUT,
        || (osc9_count(&pty.raw_bytes(), "newer idle: needs you: question") > 0).then_some(()),
        || raw_text(&pty),
    );
    // The org stream carried the open session's approval before the other's question, so
    // had the fleet announced it, it would be written by now.
    let bytes = pty.raw_bytes();
    assert_eq!(
        osc9_count(&bytes, "older idle: needs you: approval"),
        0,
        "the open session announced by the fleet as well: {}",
        raw_text(&pty)
    );
    assert_eq!(
        osc9_count(&bytes, "newer idle: needs you: question"),
        1,
        "once"
    );
    assert_eq!(
        osc9_count(&bytes, "older idle: the agent asks for approval"),
        1,
        "once"
    );
    pty.send_keys("\x0f");
    pty.wait_for(
        "the fleet again",
        |s| list_rows(s).len() == 3 && selected_row(s).contains("older idle"),
        TIMEOUT,
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn f1_and_question_mark_show_the_fleets_keys_over_the_fleet() {
    let (sim, _) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    // The hint line shows once nothing troubles the fleet (a stream still connecting is
    // said there first).
    pty.wait_for(
        "the fleet's hints",
        |s| s.contents().contains("F1 keys"),
        TIMEOUT,
    );
    for open in ["?", "\x1bOP"] {
        pty.send_keys(open);
        pty.wait_for(
            "the fleet's key list",
            |s| {
                let text = s.contents();
                text.contains("Keys ·")
                    && text.contains("rename: edit the title")
                    && text.contains("the fleet's keys (this list)")
            },
            TIMEOUT,
        );
        // A fleet key under the list does nothing: `n` creates no session.
        pty.send_keys("n");
        pty.send_keys(keys::ESC);
        pty.wait_for(
            "the list closed",
            |s| !s.contents().contains("the fleet's keys (this list)"),
            TIMEOUT,
        );
    }
    let created = sim
        .sim
        .requests()
        .into_iter()
        .filter(|r| r == "POST /v1/sessions")
        .count();
    assert_eq!(created, 0);
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

/// `T` goes to the next theme in the fleet as in a session: dark (the 256-colour accent)
/// to light, said on the message line.
#[test]
fn t_in_the_fleet_goes_to_the_next_theme() {
    let (sim, _) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    assert!(colours(&pty).contains(&DARK_ACCENT));
    pty.send_keys("T");
    pty.wait_for(
        "the light theme",
        |s| s.contents().contains("theme: light"),
        TIMEOUT,
    );
    // The message and the colours come in one frame, which may be read half written.
    until_light_accents(&pty, "every accent in the light theme's colour");
}

/// The 256-colour accent of the dark theme and of the light one.
const DARK_ACCENT: vt100::Color = vt100::Color::Idx(81);
const LIGHT_ACCENT: vt100::Color = vt100::Color::Idx(25);

/// Until every accent on the screen is the light theme's (a frame may be read half written).
fn until_light_accents(pty: &Pty, what: &str) {
    support::app::until(
        what,
        TIMEOUT,
        || {
            let now = colours(pty);
            (now.contains(&LIGHT_ACCENT) && !now.contains(&DARK_ACCENT)).then_some(())
        },
        || format!("{:?}", colours(pty)),
    );
}

/// Every foreground colour on the screen.
fn colours(pty: &Pty) -> Vec<vt100::Color> {
    pty.with_screen(|s| {
        let (rows, cols) = s.size();
        let (rows, cols) = (u16::from(rows), u16::from(cols));
        (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter_map(|(r, c)| s.cell(r, c).map(|cell| cell.fgcolor()))
            .collect::<Vec<_>>()
    })
}

/// A theme chosen with `T` lasts the run: the session opened from the fleet is drawn in it,
/// `T` there goes on from it, and the fleet comes back in the session's choice.
#[test]
fn a_theme_chosen_in_one_front_lasts_in_the_other() {
    let (sim, _) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    pty.send_keys("T");
    pty.wait_for(
        "the light theme",
        |s| s.contents().contains("theme: light"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the session",
        |s| s.contents().contains("Transcript") && s.contents().contains("Type a message"),
        TIMEOUT,
    );
    until_light_accents(&pty, "the session in the light theme's colours");
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes have the keys",
        |s| s.contents().contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("T");
    pty.wait_for(
        "the theme after light",
        |s| s.contents().contains("theme: high-contrast"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_O);
    wait_sorted(&pty);
    pty.send_keys("T");
    pty.wait_for(
        "the theme after high contrast",
        |s| s.contents().contains("theme: colorblind"),
        TIMEOUT,
    );
}

/// `D` on a fleet row opens that session with its changes view: every file it changed.
#[test]
fn d_on_a_fleet_row_opens_the_session_with_its_changes() {
    let sim = support::sim::start(SimConfig::for_tests());
    let edited = sim.sim.create_session(Some("edited the library"));
    sim.within(|s| s.send_message(&edited, "#edits tidy up"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for(
        "the session's row, settled",
        |s| {
            let rows = list_rows(s);
            rows.len() == 1 && rows[0].contains("edited the library") && rows[0].contains("idle")
        },
        TIMEOUT,
    );
    pty.send_keys("D");
    pty.wait_for(
        "the session's changes",
        |s| {
            let shown = s.contents();
            // The library edited, the note created, the repository's old document removed.
            shown.contains("Changes · the session · 3 files +8 −6")
                && shown.contains("notes/todo.md")
                && shown.contains("docs/old.md")
        },
        TIMEOUT,
    );
}

/// The fleet's header says the budgets in view: the session slots used of 25 and the event
/// streams this app holds of the token's 5 (the org stream); with a session open in front
/// of it, its Workspace pane counts both streams.
#[test]
fn the_budgets_are_in_view_in_the_fleet_and_the_workspace_pane() {
    let (sim, _) = three_sessions();
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    wait_sorted(&pty);
    pty.wait_for(
        "the slots and the org stream in the header",
        |s| {
            let top = s.contents().lines().next().unwrap_or_default().to_string();
            top.contains("slots 3/25") && top.contains("streams 1/5")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the session's stream counted too",
        |s| s.contents().contains("Transcript") && s.contents().contains("streams 2/5"),
        TIMEOUT,
    );
}
