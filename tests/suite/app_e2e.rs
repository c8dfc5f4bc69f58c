//! The real binary in a pseudo-terminal against a simulator started here: attach, send,
//! see the agent answer, survive a dropped stream, quit, and find the terminal restored;
//! `demo` starts and quits cleanly; an unknown session is a clear error; SIGTERM and SIGHUP
//! end the app cleanly. Each way out leaves the terminal restored (a panic: `app_panic.rs`).
//! And when the terminal itself goes away, the app exits promptly, keeping the draft — even
//! when no SIGHUP reaches it.

use crate::support;

use std::time::{Duration, Instant};

use crate::support::app::{
    COLS, ROWS, attach, bottom, input_box, launch, spawn_sized, status_line,
};
use crate::support::live::{attach_new, attach_new_sized, pinging_sim, wait_live};
use crate::support::process;
use crate::support::sim::Sim;
use gobare_sim::Faults;
use gobare_test_support::pty::{Launch, Pty, keys};
use tempfile::TempDir;

const TIMEOUT: Duration = Duration::from_secs(30);

/// Every app run here starts with mouse capture on (the default).
fn assert_restored(pty: &Pty) {
    support::restore::assert_restored(pty, true);
}

#[test]
fn attach_send_survive_a_drop_and_quit() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("e2e"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "the status bar to say live",
        |s| status_line(s).contains("● live") && status_line(s).contains("e2e"),
        TIMEOUT,
    );
    assert!(!pty.is_cooked(), "raw mode while running");

    pty.send_keys("fix the export please");
    pty.wait_for_text("fix the export please", TIMEOUT);
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("reproducing the problem", TIMEOUT);
    pty.wait_for_text("completed", TIMEOUT);

    // Drop the stream at its next frame and refuse reconnects until told otherwise.
    sim.sim.set_faults(Faults {
        drop_every_n_frames: Some(1),
        refuse_share: 1.0,
        refuse_status: 503,
        refuse_retry_after_secs: 1,
        ..Faults::default()
    });
    pty.send_keys("and now the totals");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the status bar to say reconnecting",
        |s| status_line(s).contains("reconnecting"),
        TIMEOUT,
    );
    assert!(
        pty.screen_text().contains("reproducing the problem"),
        "a drop must not clear the transcript:\n{}",
        pty.screen_text()
    );
    let seq_at_drop = sim.sim.last_seq();
    sim.sim.set_faults(Faults::default());
    // Everything the agent did meanwhile arrives: the status bar's cursor reaches the
    // server's last seq once the second turn is over.
    pty.wait_for(
        "live again, caught up with the second turn",
        |s| {
            let last = sim.sim.last_seq();
            status_line(s).contains("● live")
                && last > seq_at_drop
                && status_line(s).contains(&format!("seq {last} "))
                && s.contents().contains("Fixed: CSV totals")
                && s.contents().contains("recent")
        },
        TIMEOUT,
    );
    let opens = sim.sim.stream_opens();
    assert!(opens.len() >= 2, "{opens:?}");
    assert!(
        opens[1..]
            .iter()
            .all(|from| from.is_some_and(|seq| seq > 0)),
        "every reconnect resumes from the cursor: {opens:?}"
    );

    pty.send_keys(keys::CTRL_C);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}\n{}", pty.screen_text());
    assert_restored(&pty);

    // The cursor was stored for the next attach.
    let state = support::app::on_disk(&home, &sim.sim, &session);
    assert!(state.cursor.is_some_and(|c| c > 0), "{state:?}");
}

#[test]
fn ctrl_c_with_a_draft_asks_first_in_the_input_area() {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new_sized(&sim.sim, "draft", 100, 30, TIMEOUT);
    pty.send_keys("half a thought");
    pty.wait_for_text("half a thought", TIMEOUT);
    pty.send_keys(keys::CTRL_C);
    pty.wait_for(
        "the question in the input area",
        |s| bottom(s, 5).contains("Quit? you have a draft") && bottom(s, 5).contains("n/Esc no"),
        TIMEOUT,
    );
    // No: the box is back with the draft, and typing goes on.
    pty.send_keys("n");
    pty.send_keys("!");
    pty.wait_for(
        "the draft back and typed into",
        |s| !s.contents().contains("Quit?") && s.contents().contains("thought!"),
        TIMEOUT,
    );
    // Ctrl+C twice quits, as in most terminal tools.
    pty.send_keys(keys::CTRL_C);
    pty.wait_for_text("Quit?", TIMEOUT);
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty);
}

/// Shift+Tab leaves the box for the panes, where `q` is quit (asking first with a draft) and a
/// letter that is no command does nothing; Esc comes back to the draft.
#[test]
fn shift_tab_gives_the_panes_the_keys_and_q_there_asks_before_quitting() {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new_sized(&sim.sim, "panes", 100, 30, TIMEOUT);
    pty.send_keys("a draft");
    pty.wait_for_text("a draft", TIMEOUT);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("x");
    pty.send_keys("q");
    pty.wait_for(
        "the quit question",
        |s| bottom(s, 5).contains("Quit? you have a draft"),
        TIMEOUT,
    );
    pty.send_keys("n");
    pty.wait_for(
        "back in the panes",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "typing again, the draft untouched by x and q",
        |s| {
            let typed = support::app::input_box(s);
            bottom(s, 5).contains("Typing ·")
                && typed.contains("a draft")
                && !typed.contains('x')
                && !typed.contains('q')
        },
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    pty.wait_for_text("Quit?", TIMEOUT);
    pty.send_keys("y");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty);
}

#[test]
fn demo_shows_a_local_agent_at_work_and_quits_cleanly() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch(&["demo"], &home).spawn();
    pty.wait_for(
        "the demo's status bar",
        |s| status_line(s).contains("local demo") && status_line(s).contains("● live"),
        TIMEOUT,
    );
    // The first message goes out by itself and the agent starts on it within seconds.
    pty.wait_for_text("Refactor the storage layer", TIMEOUT);
    pty.wait_for_text("Map every direct database call", TIMEOUT);
    // The fleet works in the demo as with a real server, and Enter comes back.
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the demo's fleet",
        |s| {
            let text = s.contents();
            text.contains("Fleet · 1 session") && text.contains("demo: storage refactor")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the demo session again",
        |s| {
            status_line(s).contains("local demo")
                && s.contents().contains("Refactor the storage layer")
        },
        TIMEOUT,
    );
    // Mid-turn, with half a thought in the box, quitting asks first, and says the session
    // and the draft stay but the turn ends.
    pty.send_keys("and then the webhooks");
    pty.wait_for_text("and then the webhooks", TIMEOUT);
    pty.send_keys(keys::CTRL_C);
    pty.wait_for(
        "the quit question",
        |s| {
            bottom(s, 8).contains("the demo keeps the session and the draft; the running turn ends")
        },
        TIMEOUT,
    );
    pty.send_keys("y");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty);
    // The demo keeps its sessions, and the app's own state of them beside them (never in
    // the state directory a real server's sessions use).
    let kept = walk(home.path());
    assert!(
        kept.iter()
            .any(|p| p.ends_with("gobare-tui/demo/sim.sqlite")),
        "the demo keeps its sessions: {kept:?}"
    );
    assert!(
        kept.iter()
            .any(|p| p.starts_with(home.path().join("data/gobare-tui/demo/app"))),
        "the demo keeps the app's state beside them: {kept:?}"
    );
    assert!(
        !walk(&home.path().join("state"))
            .iter()
            .any(|p| p.ends_with("last_session") || p.to_string_lossy().contains("hosts")),
        "the demo wrote into the real state directory"
    );

    // Run again, it reopens that session (no second one), its turn ended by the stop, and
    // the draft is where it was.
    let mut pty = launch(&["demo"], &home).spawn();
    pty.wait_for_text("Refactor the storage layer", TIMEOUT);
    pty.wait_for(
        "the draft kept",
        |s| input_box(s).contains("and then the webhooks"),
        TIMEOUT,
    );
    // Nothing surprising left in the way: the box is cleared as a person would.
    pty.send_keys(keys::CTRL_U);
    pty.wait_for(
        "the box emptied",
        |s| !input_box(s).contains("and then the webhooks"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the same demo session in the fleet",
        |s| {
            let text = s.contents();
            text.contains("Fleet · 1 session") && text.contains("demo: storage refactor")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the demo session again",
        |s| status_line(s).contains("local demo"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    assert!(
        pty.wait_exit(TIMEOUT).success(),
        "nothing to lose: it quits at once"
    );
    assert_restored(&pty);
}

#[test]
fn attaching_to_an_unknown_session_is_a_clear_error() {
    let sim = pinging_sim(10.0);
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn_sized(
        &["attach", "00000000-0000-4000-8000-00000000dead"],
        &home,
        &sim.sim,
        100,
        30,
    );
    let status = pty.wait_exit(TIMEOUT);
    assert_eq!(status.exit_code(), 1, "{}", pty.screen_text());
    assert_restored(&pty);
    let text = pty.screen_text();
    assert!(
        text.contains("session 00000000-0000-4000-8000-00000000dead does not exist"),
        "{text}"
    );
    // Not remembered as the session to reopen.
    assert!(
        !walk(&home.path().join("state"))
            .iter()
            .any(|p| p.ends_with("last_session")),
        "an unknown session must not become the last session"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn a_long_history_replays_with_progress_then_resumes_from_the_stored_cursor() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("long history"));
    sim.sim.seed_events(&session, 30_000);
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();

    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "caught up with the whole history",
        |s| status_line(s).contains(&format!("seq {last} ")),
        TIMEOUT,
    );
    pty.wait_for(
        "the replay indicator gone",
        |s| !status_line(s).contains("replaying"),
        TIMEOUT,
    );
    let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    assert!(
        raw.contains("replaying…") || raw.contains("loading history…"),
        "progress was shown while catching up"
    );
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty);
    assert_eq!(
        sim.sim.stream_opens(),
        vec![Some(0)],
        "first attach replays all"
    );

    // Again: after the local event log's last event, no full replay; the history comes from
    // the event log.
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_eq!(sim.sim.stream_opens(), vec![Some(0), Some(last)]);
}

/// Attaches to a live session, sends `signal` to the app and expects a clean exit (status 0:
/// the signal was handled, not fatal) with the terminal given back.
fn signal_ends_the_app_cleanly(signal: libc::c_int, title: &str) {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new_sized(&sim.sim, title, 100, 30, TIMEOUT);
    assert!(!pty.is_cooked(), "raw mode while running");
    let pid = libc::pid_t::try_from(pty.pid()).unwrap();
    // SAFETY: sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}\n{}", pty.screen_text());
    assert_restored(&pty);
}

#[test]
fn sigterm_restores_the_terminal() {
    signal_ends_the_app_cleanly(libc::SIGTERM, "term");
}

/// The terminal closing (ssh dropped, window closed) sends SIGHUP; here the pty stays open
/// so what the app wrote on the way out can be checked.
#[test]
fn sighup_restores_the_terminal() {
    signal_ends_the_app_cleanly(libc::SIGHUP, "hup");
}

/// How long the app may take to notice its terminal is gone and exit.
const HANGUP_EXIT_TIMEOUT: Duration = Duration::from_secs(10);

/// The terminal itself goes away (the emulator window closes): the app gets SIGHUP and finds
/// its terminal dead — reads at EOF, writes failing. It must exit promptly and cleanly (not
/// hang, not spin on the dead terminal, no panic or error in its log) and keep what was
/// typed but not sent.
#[test]
fn closing_the_terminal_ends_the_app_without_spinning_and_keeps_the_draft() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "window closed", TIMEOUT);
    pty.send_keys("half a thought");
    pty.wait_for_text("half a thought", TIMEOUT);

    let pid = pty.pid();
    let before = process::stat(pid);
    let hung_up_at = Instant::now();
    pty.hang_up();
    let after = process::wait_until_exited(pid, HANGUP_EXIT_TIMEOUT);
    let took = hung_up_at.elapsed();
    let status = pty.wait_exit(TIMEOUT);
    // A panic on the way out would exit with 101, or abort if printing it failed too.
    assert!(status.success(), "{status:?}");
    // Spinning on the dead terminal would burn about as much CPU as time passed; exiting
    // takes a few milliseconds of work.
    let cpu = after.cpu.saturating_sub(before.cpu);
    assert!(
        cpu <= took / 2 + Duration::from_millis(100),
        "{cpu:?} of CPU in the {took:?} between the hang-up and the exit"
    );

    assert_ended_on_hang_up_with_draft(&home, &sim, &session);
}

/// The log says the app ended on the hang-up, with no panic or error, and the draft typed
/// before it is in the state file.
fn assert_ended_on_hang_up_with_draft(home: &TempDir, sim: &Sim, session: &str) {
    let log: String = walk(&home.path().join("state/gobare-tui/logs"))
        .iter()
        .map(|log| std::fs::read_to_string(log).unwrap())
        .collect();
    assert!(
        log.contains("signal=HangUp") || log.contains("terminal hung up"),
        "the log says the app ended on the hang-up:\n{log}"
    );
    for bad in ["panic", "ERROR"] {
        assert!(!log.contains(bad), "{bad:?} in the log:\n{log}");
    }
    let store =
        gobare_tui::store::StateStore::open(&home.path().join("state/gobare-tui"), &sim.sim.url())
            .unwrap();
    assert_eq!(store.load_session(session).draft, "half a thought");
}

/// Kills a process that is not our child (a grandchild) if a test fails before it is gone.
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if process::try_stat(self.0).is_some_and(|s| !s.exited()) {
            // SAFETY: sends a signal to a process this test started (through `sh`).
            unsafe { libc::kill(libc::pid_t::try_from(self.0).unwrap(), libc::SIGKILL) };
        }
    }
}

/// The app run from a shell that stays the terminal's session leader and ignores SIGHUP
/// without passing it on: when the terminal closes, the kernel signals only the shell, so
/// nothing tells the app. It must notice the hang-up by itself and end as on SIGHUP — exit
/// 0, the draft kept — rather than spin on the dead terminal forever.
#[test]
fn a_hang_up_without_sighup_still_ends_the_app_without_spinning() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("no sighup"));
    let home = tempfile::tempdir().unwrap();
    // `exit $?` after the app keeps sh from exec'ing it, and hands on its status.
    let mut pty = Launch::shell(
        r#"trap "" HUP; "$0" attach "$1"; exit $?"#,
        &[support::cli::BIN, &session],
        home.path(),
    )
    .size(COLS, ROWS)
    .api(sim.sim.url().as_str(), &sim.sim.token())
    .spawn();
    wait_live(&pty, TIMEOUT);
    pty.send_keys("half a thought");
    pty.wait_for_text("half a thought", TIMEOUT);

    let children = process::children(pty.pid());
    let [app] = children[..] else {
        panic!("expected the app as the shell's one child: {children:?}");
    };
    let _kill = KillOnDrop(app);
    let before = process::stat(app);
    let hung_up_at = Instant::now();
    pty.hang_up();
    let after = process::wait_until_gone(app, before, HANGUP_EXIT_TIMEOUT);
    let took = hung_up_at.elapsed();
    let status = pty.wait_exit(TIMEOUT);
    assert!(
        status.success(),
        "the app's exit status, via sh: {status:?}"
    );
    let cpu = after.cpu.saturating_sub(before.cpu);
    assert!(
        cpu <= took / 2 + Duration::from_millis(100),
        "{cpu:?} of CPU in the {took:?} between the hang-up and the exit"
    );

    assert_ended_on_hang_up_with_draft(&home, &sim, &session);
}

#[test]
fn narrow_terminal_tabs_follow_clicks_and_keys() {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new_sized(&sim.sim, "narrow", 60, 20, TIMEOUT);
    let pane_title =
        |s: &vt100::Screen| s.contents().lines().nth(1).unwrap_or_default().to_string();
    assert!(pty.with_screen(pane_title).contains("Transcript"));
    // A left click on the "Events" tab (SGR mouse report, 1-based column 15, row 1).
    pty.send_keys("\x1b[<0;15;1M\x1b[<0;15;1m");
    pty.wait_for(
        "the Events pane",
        |s| pane_title(s).contains("Events"),
        TIMEOUT,
    );
    // Tab from a pane moves on to the next one.
    pty.send_keys(keys::TAB);
    pty.wait_for("the Turn pane", |s| pane_title(s).contains("Turn"), TIMEOUT);
    // `m` releases the mouse for the terminal's own selection.
    pty.send_keys("m");
    pty.wait_for_text("mouse capture off", TIMEOUT);
    pty.with_screen(|s| assert_eq!(s.mouse_protocol_mode(), vt100::MouseProtocolMode::None));
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert_restored(&pty);
}

#[test]
fn a_restarted_demo_reopens_the_session_looked_at_last_even_one_opened_from_the_fleet() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch(&["demo"], &home).spawn();
    pty.wait_for_text("Refactor the storage layer", TIMEOUT);
    // A second session, made from the fleet: the newest.
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the demo's fleet",
        |s| s.contents().contains("demo: storage refactor"),
        TIMEOUT,
    );
    pty.send_keys("n");
    // The session's own screen (its Transcript pane), not the fleet's bottom line naming the
    // demo while the new session is being made: a Ctrl+O sent then goes to the fleet.
    pty.wait_for(
        "the new session open",
        |s| {
            let status = status_line(s);
            status.contains("local demo")
                && !status.contains("demo: storage refactor")
                && s.contents().contains("┌ Transcript")
        },
        TIMEOUT,
    );
    // Back in the fleet, the first session opened again: it is the one looked at last.
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the fleet with both",
        |s| crate::support::app::fleet_list_rows(s).len() == 2,
        TIMEOUT,
    );
    let selected = |s: &vt100::Screen| {
        crate::support::app::fleet_list_rows(s)
            .into_iter()
            .find(|r| r.starts_with('›'))
            .unwrap_or_default()
    };
    if !pty.with_screen(|s| selected(s).contains("demo: storage refactor")) {
        pty.send_keys(keys::DOWN);
        if !pty.with_screen(|s| selected(s).contains("demo: storage refactor")) {
            pty.send_keys(keys::UP);
            pty.send_keys(keys::UP);
        }
    }
    pty.wait_for(
        "the demo's first session selected",
        |s| selected(s).contains("demo: storage refactor"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the first session open",
        |s| status_line(s).contains("demo: storage refactor"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    if pty.wait_for_or_exit(
        "the quit question (a turn runs)",
        |s| bottom(s, 8).contains("Quit?"),
        TIMEOUT,
    ) {
        pty.send_keys("y");
    }
    assert!(pty.wait_exit(TIMEOUT).success());

    // Not the newest session: the one looked at last.
    let mut pty = launch(&["demo"], &home).spawn();
    pty.wait_for(
        "the session looked at last",
        |s| status_line(s).contains("demo: storage refactor"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    if pty.wait_for_or_exit("quit", |s| bottom(s, 8).contains("Quit?"), TIMEOUT) {
        pty.send_keys("y");
    }
    let _ = pty.wait_exit(TIMEOUT);
}
