//! The decision inbox in a pty against the simulator: an approval and a question answered
//! from the fleet's inbox (checked on what the simulator took), F3 from inside a session
//! back to it (and Esc from there back to that session), and — with a short workspace lifetime on both sides — a parked turn ending
//! failed as its countdown reaches zero, within a tick.

use std::cell::RefCell;
use std::time::Duration;

use crate::support;
use crate::support::app::{launch_on, spawn, status_line};
use gobare_api::model::{Input, TurnStatus};
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(40);

/// The inbox's rows (below its header), without the frame.
fn inbox_rows(s: &vt100::Screen) -> Vec<String> {
    s.contents()
        .lines()
        .skip(2)
        .map(|l| {
            l.trim_start_matches('│')
                .trim_end()
                .trim_end_matches('│')
                .to_string()
        })
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

fn selected(s: &vt100::Screen) -> String {
    inbox_rows(s)
        .into_iter()
        .find(|r| r.starts_with('›'))
        .unwrap_or_default()
}

fn in_inbox(s: &vt100::Screen) -> bool {
    s.contents()
        .lines()
        .next()
        .is_some_and(|l| l.contains("Inbox"))
}

/// Moves the selection, up or down, to the row that contains `what` (rows with equal
/// deadlines may come in either order).
fn select_row(pty: &mut Pty, what: &str) {
    for _ in 0..10 {
        let (at, target) = pty.with_screen(|s| {
            let rows = inbox_rows(s);
            (
                rows.iter().position(|r| r.starts_with('›')),
                rows.iter().position(|r| r.contains(what)),
            )
        });
        let (Some(at), Some(target)) = (at, target) else {
            panic!("no row holds {what}: {}", pty.screen_text());
        };
        if at == target {
            return;
        }
        let before = pty.with_screen(selected);
        pty.send_keys(if target > at { keys::DOWN } else { keys::UP });
        pty.wait_for(
            "the selection to move",
            |s| selected(s) != before || selected(s).contains(what),
            TIMEOUT,
        );
    }
    panic!("the selection never reached {what}: {}", pty.screen_text());
}

#[test]
fn the_inbox_answers_an_approval_and_a_question_from_the_fleet() {
    let sim = support::sim::start(SimConfig::for_tests());
    let restart = sim.sim.create_session(Some("restart the worker"));
    let choose = sim.sim.create_session(Some("pick a release"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for_text("Fleet · 2 sessions", TIMEOUT);
    sim.within(|s| s.send_message(&restart, "restart it #approval"));
    sim.within(|s| s.send_message(&choose, "which way #question"));
    pty.send_keys("i");
    pty.wait_for(
        "both waits in the inbox",
        |s| {
            let rows = inbox_rows(s);
            in_inbox(s)
                && rows
                    .iter()
                    .any(|r| r.contains("approval⚠") && r.contains("restart the worker"))
                && rows
                    .iter()
                    .any(|r| r.contains("question") && r.contains("Roll back"))
        },
        TIMEOUT,
    );
    // The fleet saw each workspace start: their deadlines are estimates, not unknown.
    assert!(
        pty.with_screen(|s| inbox_rows(s).iter().all(|r| r.contains('≈'))),
        "{}",
        pty.screen_text()
    );

    // The approval: letters decide nothing until Tab; it is sensitive, so y twice.
    select_row(&mut pty, "approval");
    pty.send_keys("y");
    pty.send_keys(keys::TAB);
    pty.wait_for(
        "the deciding mode, the whole command in sight",
        |s| {
            s.contents().contains("Deciding")
                && s.contents().contains("systemctl restart export-worker")
        },
        TIMEOUT,
    );
    assert!(sim.sim.answers().is_empty(), "y in the list sent nothing");
    pty.send_keys("y");
    pty.wait_for_text("SENSITIVE", TIMEOUT);
    pty.send_keys("y");
    pty.wait_for(
        "the approval gone from the inbox",
        |s| !inbox_rows(s).iter().any(|r| r.contains("approval")),
        TIMEOUT,
    );
    let answers = sim.sim.answers();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0].session_id, restart);
    assert!(
        matches!(&answers[0].input, Input::Approval { approved: true, .. }),
        "{answers:?}"
    );
    assert_eq!(answers[0].outcome, "accepted");

    // F3 from inside a session comes back to the inbox, at the soonest. The row can leave
    // before the inbox is back in its list: `o` opens only there.
    pty.wait_for(
        "the inbox's list keys again",
        |s| s.contents().contains("Enter/o open"),
        TIMEOUT,
    );
    select_row(&mut pty, "question");
    pty.send_keys("o");
    pty.wait_for(
        "the question's session open",
        |s| status_line(s).contains("pick a release"),
        TIMEOUT,
    );
    pty.send_keys(keys::F3);
    pty.wait_for(
        "the inbox again, at the question",
        |s| in_inbox(s) && selected(s).contains("question"),
        TIMEOUT,
    );
    // Its deadline as the session's prompt had it: the session read the workspace's whole
    // history, which the fleet (opened after the workspaces started) had not.
    pty.wait_for(
        "the question's deadline known",
        |s| selected(s).contains('≈'),
        TIMEOUT,
    );

    // The question: its second option, picked by number.
    pty.send_keys(keys::TAB);
    pty.wait_for_text("Deciding", TIMEOUT);
    pty.send_keys("2");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("Nothing waits on you.", TIMEOUT);
    let answers = sim.sim.answers();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[1].session_id, choose);
    assert!(
        matches!(&answers[1].input, Input::QuestionAnswer { answer, .. } if answer == "patch"),
        "{answers:?}"
    );
    assert_eq!(answers[1].outcome, "accepted");

    // Opened by F3 in the session, Esc goes back to it, and says so (once the answer's
    // report is in: the list may empty a moment before it, with the prompt still up).
    pty.wait_for_text("Esc back to the session", TIMEOUT);
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "back in the session F3 was pressed in",
        |s| !in_inbox(s) && status_line(s).contains("pick a release"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_O);
    pty.wait_for_text("Fleet · 2 sessions", TIMEOUT);
    // Opened in the fleet, Esc goes back to the fleet.
    pty.send_keys("i");
    pty.wait_for(
        "the inbox, its way back the fleet",
        |s| in_inbox(s) && s.contents().contains("Esc fleet"),
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the fleet again",
        |s| !in_inbox(s) && s.contents().contains("Fleet · 2 sessions"),
        TIMEOUT,
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

/// The seconds an "≈ 1m 05s" / "≈ 7s" countdown shows.
fn countdown_secs(row: &str) -> Option<i64> {
    let rest = row.split('≈').nth(1)?.trim_start();
    let mut secs = 0;
    for part in rest.split_whitespace().take(2) {
        let (n, unit) = part.split_at(part.find(|c: char| !c.is_ascii_digit())?);
        let n: i64 = n.parse().ok()?;
        secs += match unit {
            "h" => n * 3600,
            "m" => n * 60,
            "s" => n,
            _ => return None,
        };
        if unit == "s" {
            break;
        }
    }
    Some(secs)
}

#[test]
fn a_parked_turn_ends_failed_as_its_countdown_reaches_zero() {
    // A short lifetime on both sides: the simulator reclaims the workspace after it, the
    // app counts down to it.
    const LIFETIME_S: u64 = 8;
    let mut config = SimConfig::for_tests();
    config.workspace_lifetime = Duration::from_secs(LIFETIME_S);
    let sim = support::sim::start(config);
    let session = sim.sim.create_session(Some("parked"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch_on(&sim.sim, &["fleet"], &home)
        .env("GOBARE_WORKSPACE_LIFETIME_SECS", LIFETIME_S.to_string())
        .spawn();
    pty.wait_for_text("Fleet · 1 session", TIMEOUT);
    sim.within(|s| s.send_message(&session, "restart it #approval"));
    pty.send_keys("i");
    // Every countdown seen, with the wall clock it was seen at, until the row leaves.
    let seen: RefCell<Vec<(i64, i64)>> = RefCell::new(Vec::new());
    pty.wait_for(
        "the approval to count down and leave",
        |s| {
            let rows = inbox_rows(s);
            match rows.iter().find(|r| r.contains("approval")) {
                Some(row) => {
                    if let Some(secs) = countdown_secs(row) {
                        let mut seen = seen.borrow_mut();
                        if seen.last().is_none_or(|(_, last)| *last != secs) {
                            seen.push((gobare_api::clock::unix_ms(), secs));
                        }
                    }
                    false
                }
                None => !seen.borrow().is_empty() && in_inbox(s),
            }
        },
        TIMEOUT,
    );
    let seen = seen.into_inner();
    let turns = sim.turns(&session);
    let turn = &turns[0];
    assert_eq!(turn.status, TurnStatus::Failed, "{turn:?}");
    let failed_at = turn.completed_at.expect("a settled turn has its time");
    // The first countdown seen: N seconds (rounded up) as drawn just before it was seen,
    // so the app's deadline lies in (seen − 1 tick − lag, seen + N s]. The simulator
    // failed the turn at its own deadline, a little late at most.
    let (at, secs) = seen[0];
    let predicted = at + secs * 1000;
    assert!(
        (predicted - 2_000..=predicted + 1_000).contains(&failed_at),
        "the turn failed at {failed_at}, the countdown said {predicted} (seen {seen:?})"
    );
    // It counted down second by second to its last.
    let last = seen.last().unwrap().1;
    assert!(last <= 1, "the last countdown seen was {last} s: {seen:?}");
    pty.send_keys(keys::ESC);
    pty.wait_for_text("Fleet · 1 session", TIMEOUT);
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

/// A session open first, its workspace started before any fleet: F3 opens the inbox with
/// the deadline the session's prompt shows, not "unknown" (the fleet, new, saw no start).
#[test]
fn f3_from_a_session_opened_first_keeps_its_deadline() {
    let sim = support::sim::start(SimConfig::for_tests());
    let id = sim.sim.create_session(Some("restart the worker"));
    sim.within(|s| s.send_message(&id, "restart it #approval"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["attach", &id], &home, &sim.sim);
    pty.wait_for(
        "the approval's deadline in the session's prompt",
        |s| s.contents().contains("left (workspace lifetime)"),
        TIMEOUT,
    );
    pty.send_keys(keys::F3);
    pty.wait_for(
        "the inbox at the approval, its deadline known",
        |s| in_inbox(s) && selected(s).contains("approval") && selected(s).contains('≈'),
        TIMEOUT,
    );
    assert!(
        !pty.with_screen(|s| selected(s).contains("unknown")),
        "{}",
        pty.screen_text()
    );
}
