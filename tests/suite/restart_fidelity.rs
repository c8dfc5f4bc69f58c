//! A restart shows the screen that was there before quitting: the app replays its local event log
//! of persisted events (todos, diffs, the approval and its outcome, the Events pane, the
//! seq) and the stream resumes after the log's last event, nothing re-downloaded.

use crate::support;

use std::time::Duration;

use crate::support::app::{COLS, attach, bottom, input_box, status_line, tab_to_decide};
use crate::support::live::{attach_new, pinging_sim, wait_live};
use crate::support::sim::Sim;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(30);

/// Waits until the status bar shows the server's last seq and the app is live.
fn wait_caught_up(pty: &Pty, last: u64) {
    pty.wait_for(
        "live and caught up with the server's last seq",
        |s| status_line(s).contains("● live") && status_line(s).contains(&format!("seq {last}")),
        TIMEOUT,
    );
}

/// The screen as two columns of rows (the transcript; the side panes), with what moves by
/// itself masked: clocks and durations, and the status bar's notice and hints (only its
/// connection and seq are compared). The workspace's path of states (`unknown → running`)
/// is left out (with the side panes' blank rows, which it shifts): it records the order of
/// the session reads against the events, which is not logged.
fn screen_without_clocks(pty: &Pty) -> (Vec<String>, Vec<String>) {
    pty.with_screen(|s| {
        let rows: Vec<String> = s.rows(0, COLS).collect();
        let split = rows[0]
            .find("┐┌")
            .map_or(0, |i| rows[0][..i].chars().count() + 1);
        let mut left = Vec::new();
        let mut right = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            if i == rows.len() - 1 {
                let head: Vec<&str> = row.split('│').take(2).collect();
                left.push(mask_clocks(&head.join("│")));
                continue;
            }
            let chars: Vec<char> = row.chars().collect();
            let cut = split.min(chars.len());
            left.push(mask_clocks(&chars[..cut].iter().collect::<String>()));
            let side = mask_clocks(&chars[cut..].iter().collect::<String>());
            let blank = side
                .trim_matches(|c: char| c == '│' || c.is_whitespace())
                .is_empty();
            if !blank && !is_workspace_path(&side) {
                right.push(side);
            }
        }
        (left, right)
    })
}

fn is_workspace_path(row: &str) -> bool {
    let inner = row.trim_matches(|c: char| c == '│' || c.is_whitespace());
    inner.contains(" → ")
        && inner.split(" → ").all(|state| {
            matches!(
                state,
                "unknown" | "running" | "paused" | "destroyed" | "recovering" | "recovery_failed"
            )
        })
}

fn differences(before: &[String], after: &[String]) -> Vec<String> {
    let mut out: Vec<String> = before
        .iter()
        .zip(after)
        .enumerate()
        .filter(|(_, (b, a))| b != a)
        .map(|(row, (b, a))| format!("row {row}:\n  before: {b}\n  after:  {a}"))
        .collect();
    if before.len() != after.len() {
        out.push(format!(
            "{} rows before, {} after",
            before.len(),
            after.len()
        ));
    }
    out
}

/// Every word holding a digit next to a time unit or a colon (`3s`, `1.2 s`, `09:12`,
/// `4m`) becomes `#`; other numbers (seq, counts) stay and must match.
fn mask_clocks(row: &str) -> String {
    let words: Vec<&str> = row.split(' ').collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let core = word.trim_matches(|c: char| "()[],·".contains(c));
        let has_digit = core.chars().any(|c| c.is_ascii_digit());
        let timed = has_digit
            && (core.contains(':')
                || core
                    .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                    .len()
                    <= 2
                    && core.ends_with(['s', 'm', 'h'])
                || words
                    .get(i + 1)
                    .is_some_and(|next| matches!(*next, "s" | "ms" | "m" | "h" | "ago")));
        out.push(if timed { "#" } else { word });
    }
    out.join(" ")
}

/// Plays a turn with todos and a diff, then one whose sensitive approval is granted, and
/// waits until everything settled. Returns the server's last seq.
fn play_the_scenario(pty: &mut Pty, sim: &Sim) -> u64 {
    wait_live(pty, TIMEOUT);
    pty.send_keys("fix the export please");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("completed", TIMEOUT);
    pty.send_keys("restart the worker #approval");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    tab_to_decide(
        pty,
        |s| bottom(s, 14).contains("approve (asks again)"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for(
        "the second step",
        |s| bottom(s, 8).contains("SENSITIVE"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for_text("draining again", TIMEOUT);
    // A decision holds the keys until Esc; typing is what a restart comes back to.
    pty.send_keys(keys::ESC);
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);
    pty.wait_for(
        "the approved turn to settle",
        |s| !bottom(s, 8).contains("Ctrl+S steer"),
        TIMEOUT,
    );
    wait_settled(pty);
    let last = sim.sim.last_seq();
    wait_caught_up(pty, last);
    last
}

fn wait_settled(pty: &Pty) {
    pty.wait_for(
        "the turns and their artifacts settled",
        |s| {
            let text = s.contents();
            text.contains("Turn · completed")
                // Settled: "ready", or "none" for a turn that published nothing.
                && (text.contains("artifacts: ready") || text.contains("artifacts: none"))
                && !text.contains("settling")
        },
        TIMEOUT,
    );
}

/// Restarts the app and asserts it shows `before` again.
fn restart_and_compare(
    sim: &Sim,
    session: &str,
    home: &tempfile::TempDir,
    last: u64,
    before: &(Vec<String>, Vec<String>),
) -> Pty {
    let pty = attach(session, home, &sim.sim);
    wait_caught_up(&pty, last);
    wait_settled(&pty);
    // The workspace's usage is read from the API after attach, not from the log; its two
    // lines size the panes, so the screen is compared once they are back.
    if before.1.iter().any(|row| row.contains("chargeable")) {
        pty.wait_for(
            "the workspace's usage",
            |s| s.contents().contains("chargeable"),
            TIMEOUT,
        );
    }
    let after = screen_without_clocks(&pty);
    let text = pty.screen_text();
    assert!(
        !text.contains("No events yet"),
        "the Events pane is back:\n{text}"
    );
    assert!(
        !text.contains("outcome not in the history"),
        "the approval's outcome is back:\n{text}"
    );
    let mut differing = differences(&before.0, &after.0);
    differing.extend(differences(&before.1, &after.1));
    assert!(
        differing.is_empty(),
        "the screen after the restart differs:\n{}\n\nbefore (right):\n{}\n\nafter:\n{text}",
        differing.join("\n"),
        before.1.join("\n")
    );
    pty
}

#[test]
fn a_restart_shows_the_same_screen_from_the_local_log() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("fidelity"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    let last = play_the_scenario(&mut pty, &sim);
    let before = screen_without_clocks(&pty);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
    assert_eq!(sim.sim.last_seq(), last, "nothing happened while away");

    let mut pty = restart_and_compare(&sim, &session, &home, last, &before);
    assert_eq!(
        sim.sim.stream_opens().last(),
        Some(&Some(last)),
        "the stream resumed after the log's last event: nothing was replayed from the server"
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

/// A crash mid-write (the last record torn) with garbage after it: the log is cut back to
/// the last good record, the stream fetches the rest, and the screen is the same — nothing
/// lost, nothing twice.
#[test]
fn a_torn_log_with_garbage_after_it_is_cut_back_and_the_rest_fetched_again() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("torn"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    let last = play_the_scenario(&mut pty, &sim);
    let before = screen_without_clocks(&pty);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

    let segment = event_log_segment(&home, &sim.sim, &session);
    let len = std::fs::metadata(&segment).unwrap().len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&segment)
        .unwrap();
    file.set_len(len - 7).unwrap();
    drop(file);
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes.extend((0..500u32).map(|i| (i * 37 % 256) as u8));
    std::fs::write(&segment, bytes).unwrap();

    let mut pty = restart_and_compare(&sim, &session, &home, last, &before);
    assert_eq!(
        sim.sim.stream_opens().last(),
        Some(&Some(last - 1)),
        "the torn last event is fetched again from the stream"
    );
    let text = pty.screen_text();
    assert_eq!(
        text.matches("The queue is draining again").count(),
        1,
        "the re-fetched event is shown once:\n{text}"
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

/// The session's current event log segment under the app's state directory.
fn event_log_segment(
    home: &tempfile::TempDir,
    sim: &gobare_sim::Simulator,
    session: &str,
) -> std::path::PathBuf {
    let store =
        gobare_tui::store::StateStore::open(&home.path().join("state/gobare-tui"), &sim.url())
            .unwrap();
    store
        .event_log_files(session)
        .unwrap()
        .current_segment()
        .to_path_buf()
}

/// The Turn pane reads the last five turns; a restart of a session with more still says how
/// each earlier turn ended (its separator reads "completed", never a bare "turn ended").
#[test]
fn separators_of_turns_older_than_the_recent_five_say_how_they_ended_after_a_restart() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "many turns", TIMEOUT);
    for n in 1..=7 {
        let text = format!("step {n}");
        pty.send_keys(&text);
        pty.wait_for(
            "the text in the box",
            |s| input_box(s).contains(&text),
            TIMEOUT,
        );
        pty.send_keys(keys::ENTER);
        pty.wait_for(
            "the message accepted",
            |_| sim.sim.accepted_messages().len() == n,
            TIMEOUT,
        );
        // One turn at a time: the queue holds five.
        pty.wait_for(
            "its turn over",
            |s| {
                let screen = s.contents();
                screen.contains(&format!("asked {text}"))
                    && screen.contains("Turn · completed")
                    && !screen.contains("settling")
            },
            TIMEOUT,
        );
    }
    wait_caught_up(&pty, sim.sim.last_seq());
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

    // Tall enough that the zoomed transcript shows every turn at once. The idle workspace
    // may pause meanwhile: caught up is with whatever the server has now.
    let mut pty = support::app::spawn_sized(&["attach", &session], &home, &sim.sim, 100, 400);
    pty.wait_for(
        "live and caught up",
        |s| {
            let status = status_line(s);
            status.contains("● live") && status.contains(&format!("seq {} ", sim.sim.last_seq()))
        },
        TIMEOUT,
    );
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes have the keys",
        |s| bottom(s, 4).contains("Panes"),
        TIMEOUT,
    );
    pty.send_keys("z");
    pty.wait_for(
        "every separator to say how its turn ended",
        |s| {
            let text = s.contents();
            text.contains("step 1")
                && text.matches("✓ completed in").count() == 7
                && !text.contains("turn ended ──")
        },
        TIMEOUT,
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}
