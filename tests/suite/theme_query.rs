//! The `auto` theme asks the terminal for its background (OSC 11): a light answer picks the
//! light theme, and no answer starts dark at once; an answer that comes after the wait is
//! never typed, in a session or in the fleet. The real binary in a pty whose terminal
//! answers as xterm does, late, or not at all.

use std::time::{Duration, Instant};

use crate::support;
use crate::support::app::{fleet_list_rows, input_box, launch_on, status_line};
use crate::support::live::wait_live;
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use gobare_test_support::pty::{Launch, Pty};

const TIMEOUT: Duration = Duration::from_secs(40);
/// A terminal's late answers to the app's questions, in every form: OSC 11 ended by BEL
/// (read as keys, Ctrl+G) and by ST, DA1, a cursor position report.
const LATE_ANSWERS: &str = concat!(
    "\x1b]11;rgb:ffff/ffff/ffff\x07",
    "\x1b[?62;22c",
    "\x1b]11;rgb:0000/2b2b/3636\x1b\\",
    "\x1b[12;40R",
);
/// The themes' accents in the 256-colour cube.
const DARK_ACCENT: vt100::Color = vt100::Color::Idx(81);
const LIGHT_ACCENT: vt100::Color = vt100::Color::Idx(25);

fn open(rgb: Option<&'static str>) -> (support::sim::Sim, Pty, Instant) {
    open_with(rgb, |app| app)
}

fn open_with(
    rgb: Option<&'static str>,
    more: impl FnOnce(Launch) -> Launch,
) -> (support::sim::Sim, Pty, Instant) {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("background"));
    let home = tempfile::tempdir().unwrap();
    let app = launch_on(&sim.sim, &["attach", &session], &home)
        .env_remove("COLORFGBG")
        .size(120, 30)
        .background(rgb);
    let app = more(app);
    let started = Instant::now();
    let pty = app.spawn();
    std::mem::forget(home);
    (sim, pty, started)
}

fn colours_drawn(pty: &Pty) -> Vec<vt100::Color> {
    pty.with_screen(|s| {
        let (rows, cols) = s.size();
        let (rows, cols) = (u16::from(rows), u16::from(cols));
        (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter_map(|(r, c)| s.cell(r, c).map(|cell| cell.fgcolor()))
            .collect()
    })
}

#[test]
fn a_light_answer_picks_the_light_theme() {
    let (_sim, pty, _) = open(Some("ffff/ffff/ffff"));
    wait_live(&pty, TIMEOUT);
    let colours = colours_drawn(&pty);
    assert!(colours.contains(&LIGHT_ACCENT), "{colours:?}");
    assert!(!colours.contains(&DARK_ACCENT));
    // The answer was read as an answer, never as keys.
    assert!(!pty.screen_text().contains("11;rgb"));
}

#[test]
fn a_dark_answer_or_none_starts_dark_and_no_answer_costs_at_most_the_timeout() {
    let (_sim, pty, _) = open(Some("0000/2b2b/3636"));
    wait_live(&pty, TIMEOUT);
    assert!(colours_drawn(&pty).contains(&DARK_ACCENT));

    let (_sim, pty, started) = open(None);
    pty.wait_for(
        "the first frame",
        |s| s.contents().contains("Transcript"),
        TIMEOUT,
    );
    let first_frame = started.elapsed();
    wait_live(&pty, TIMEOUT);
    assert!(colours_drawn(&pty).contains(&DARK_ACCENT));
    assert!(pty.raw_bytes().windows(6).any(|w| w == b"\x1b]11;?"));
    println!(
        "no answer: first frame {} ms after the start (the wait for an answer is at most \
         100 ms of it)",
        first_frame.as_millis(),
    );
}

#[test]
fn answers_that_come_after_the_wait_are_never_typed() {
    // An editor that leaves a mark: a BEL read as Ctrl+G would open it.
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("editor-opened");
    let editor = dir.path().join("editor.sh");
    std::fs::write(&editor, format!("#!/bin/sh\ntouch '{}'\n", mark.display())).unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (_sim, mut pty, _) = open_with(None, |app| {
        app.env("VISUAL", &editor).env("EDITOR", &editor)
    });
    // The wait is over: the first frame is drawn once the app gave up on the answer.
    wait_live(&pty, TIMEOUT);
    // Then the terminal answers, in every form, late; then a person types.
    pty.send_keys(LATE_ANSWERS);
    pty.send_keys("ok");
    pty.wait_for("the typed text", |s| input_box(s).contains("ok"), TIMEOUT);
    let typed = pty.with_screen(input_box);
    assert!(!typed.contains("rgb"), "{typed:?}");
    assert!(!typed.contains("11;"), "{typed:?}");
    assert!(!pty.screen_text().contains("rgb:"));
    assert!(!mark.exists(), "the answer's BEL opened the editor");
}

fn selected_row(s: &vt100::Screen) -> String {
    fleet_list_rows(s)
        .into_iter()
        .find(|r| r.starts_with('›'))
        .unwrap_or_default()
}

/// The fleet read the answer's `r` as rename, typed the rest into the title, and the next
/// Enter saved it. Here the answers come late, then a person moves down a row and opens it:
/// no rename line, and nothing patched.
#[test]
fn in_the_fleet_late_answers_open_no_rename_and_enter_patches_no_title() {
    let sim = support::sim::start(SimConfig::for_tests());
    let titles = ["first idle", "second idle"];
    for title in titles {
        sim.sim.create_session(Some(title));
    }
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch_on(&sim.sim, &["fleet"], &home)
        .env_remove("COLORFGBG")
        .background(None)
        .spawn();
    // The wait is over: the list is drawn once the app gave up on the answer.
    pty.wait_for(
        "both sessions listed",
        |s| {
            let rows = fleet_list_rows(s);
            rows.len() == 2 && titles.iter().all(|t| rows.iter().any(|r| r.contains(t)))
        },
        TIMEOUT,
    );
    let first = pty.with_screen(selected_row);
    let other = *titles.iter().find(|t| !first.contains(*t)).unwrap();

    pty.send_keys(LATE_ANSWERS);
    pty.send_keys(keys::DOWN);
    // The row moves when Down is a key of the list, not of a rename line.
    pty.wait_for(
        "Down moved the selection, or a rename line took it",
        |s| selected_row(s).contains(other) || s.contents().contains("new title:"),
        TIMEOUT,
    );
    assert!(
        !pty.screen_text().contains("new title:"),
        "an answer opened rename:\n{}",
        pty.screen_text()
    );

    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the selected session open, or a title patched",
        |s| status_line(s).contains(other) || !sim.sim.patches().is_empty(),
        TIMEOUT,
    );
    assert_eq!(sim.sim.patches(), [], "a title was patched");
    let requests = sim.sim.requests();
    assert!(
        !requests.iter().any(|r| r.starts_with("PATCH")),
        "{requests:#?}"
    );
    assert!(!pty.screen_text().contains("new title:"));
}
