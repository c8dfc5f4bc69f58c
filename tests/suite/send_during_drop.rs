//! A send during a drop, with the real binary in a pseudo-terminal (issue 6): typed while
//! the stream is down and the simulator refuses sends with 503 + `Retry-After`, it is
//! delivered once after recovery under the Idempotency-Key stored on disk; and across a
//! crash (SIGKILL) the pending send is shown again above the box and re-sent with the same
//! key, delivered once; a draft comes back in the box; refusals that outlast the retries
//! are reported and the text waits in the box.

use crate::support;

use std::time::Duration;

use crate::support::app::{COLS, attach, bottom, input_box, on_disk, status_line};
use crate::support::live::{attach_new_sized, pinging, wait_live};
use crate::support::sim::Sim;
use gobare_sim::{Faults, SimConfig, Simulator};
use gobare_test_support::pty::{Pty, keys};
use tempfile::TempDir;

const TIMEOUT: Duration = Duration::from_secs(40);

fn start_sim() -> Sim {
    pinging(SimConfig {
        speed: 10.0,
        retry_ms: 250,
        ..SimConfig::for_tests()
    })
}

/// Polls `check` until it holds, panicking with `what` (and `detail`) after [`TIMEOUT`].
fn until<T>(what: &str, check: impl FnMut() -> Option<T>, detail: impl Fn() -> String) -> T {
    support::app::until(what, TIMEOUT, check, detail)
}

fn kill9(pty: &mut Pty) {
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(pty.pid() as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0, "kill -9");
    let status = pty.wait_exit(TIMEOUT);
    assert!(!status.success(), "killed, not exited: {status:?}");
}

fn refused_so_far(sim: &Simulator, started_with: u32) -> u32 {
    started_with - sim.faults().refuse_sends
}

/// Every one of the next [`REFUSALS`] sends refused: 503 with `Retry-After`.
fn refuse_sends(sim: &Simulator, retry_after_secs: u64) {
    sim.set_faults(Faults {
        refuse_retry_after_secs: retry_after_secs,
        refuse_sends: REFUSALS,
        ..Faults::default()
    });
}

/// A new session titled `title` and the app attached to it in a tall pty ([`TALL_ROWS`]), live.
fn attach_new(sim: &Simulator, title: &str, timeout: Duration) -> (String, TempDir, Pty) {
    attach_new_sized(sim, title, COLS, TALL_ROWS, timeout)
}

/// Types `text`, waits until the box shows it, and presses Enter.
fn type_and_send(pty: &mut Pty, text: &str) {
    pty.send_keys(text);
    pty.wait_for(
        "the text in the box",
        |s| input_box(s).contains(text),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
}

/// Waits until the app has settled its send: no pending record on disk.
fn until_pending_send_cleared(pty: &Pty, home: &TempDir, sim: &Simulator, session: &str) {
    until(
        "the pending send cleared on disk",
        || {
            on_disk(home, sim, session)
                .pending_send
                .is_none()
                .then_some(())
        },
        || pty.screen_text(),
    );
}

/// The send of `text` shown as pending above the input box, the box itself free of it.
fn shown_pending(s: &vt100::Screen, text: &str) -> bool {
    let above_box = bottom(s, 6);
    (above_box.contains(&format!("sending: {text}"))
        || above_box.contains(&format!("to retry: {text}")))
        && !input_box(s).contains(text)
}

fn occurrences(screen: &str, text: &str) -> usize {
    screen.matches(text).count()
}

/// Rows that are the user's own message: the transcript's `▌ ` bar before the text.
fn own_lines(screen: &str, text: &str) -> usize {
    screen
        .lines()
        .filter(|l| l.contains(&format!("▌ {text}")))
        .count()
}

/// Where the text is shown as something other than the user's message: the scripted
/// agent naming it back (its plan `You asked: “text”.`, its checklist `Read the request:
/// text`, its closing reply `Done: text`) and the turn pane's `asked text`.
fn quotes(screen: &str, text: &str) -> usize {
    [
        format!("“{text}”"),
        format!("Read the request: {text}"),
        format!("Done: {text}"),
        format!("asked {text}"),
    ]
    .iter()
    .map(|quote| screen.matches(quote.as_str()).count())
    .sum()
}

/// The user's message in the transcript once, and any other sight of its text a quote of
/// it.
fn shown_once(screen: &str, text: &str) -> bool {
    own_lines(screen, text) == 1 && occurrences(screen, text) == 1 + quotes(screen, text)
}

/// Rows enough for the whole of the first turn (the message and the agent's reply) on
/// screen at once, so the user's line is never scrolled out of the check.
const TALL_ROWS: u16 = 100;

fn attach_tall(session: &str, home: &TempDir, sim: &Simulator) -> Pty {
    support::app::spawn_sized(&["attach", session], home, sim, COLS, TALL_ROWS)
}

/// Live again, the cursor on the server's last seq, the text in the transcript once and the
/// box empty.
fn wait_delivered_and_shown_once(pty: &Pty, sim: &Simulator, text: &str) {
    pty.wait_for(
        "live, caught up, the message shown once and the box empty",
        |s| {
            let last = sim.last_seq();
            status_line(s).contains("● live")
                && status_line(s).contains(&format!("seq {last} "))
                && shown_once(&s.contents(), text)
                && !input_box(s).contains(text)
        },
        TIMEOUT,
    );
}

const REFUSALS: u32 = 1_000;

#[test]
fn a_message_sent_while_the_stream_is_down_and_sends_are_refused_arrives_once() {
    let sim = start_sim();
    let (session, home, mut pty) = attach_new(&sim.sim, "drop", TIMEOUT);

    // The stream goes down (dropped mid-frame at the next event, reopens refused with 503)
    // and every send is refused with 503 + Retry-After: 1 until the faults are cleared.
    sim.sim.set_faults(Faults {
        drop_probability: 1.0,
        refuse_share: 1.0,
        refuse_status: 503,
        refuse_retry_after_secs: 1,
        refuse_sends: REFUSALS,
        ..Faults::default()
    });
    sim.sim.seed_events(&session, 1);
    pty.wait_for(
        "the status bar to say reconnecting",
        |s| status_line(s).contains("reconnecting"),
        TIMEOUT,
    );

    let text = "written while the stream was down";
    type_and_send(&mut pty, text);
    let key = until(
        "the pending send on disk",
        || {
            let state = on_disk(&home, &sim.sim, &session);
            let pending = state.pending_send?;
            assert_eq!(pending.text, text);
            Some(pending.idempotency_key)
        },
        || pty.screen_text(),
    );
    // Three attempts refused, each after the Retry-After it was told: still pending and
    // shown so above the box, nothing recorded by the server.
    until(
        "three refused sends",
        || (refused_so_far(&sim.sim, REFUSALS) >= 3).then_some(()),
        || pty.screen_text(),
    );
    assert_eq!(sim.sim.messages_with_key(&key), 0);
    assert!(
        pty.with_screen(|s| shown_pending(s, text)),
        "the send is shown pending while it is refused:\n{}",
        pty.screen_text()
    );
    assert_eq!(
        on_disk(&home, &sim.sim, &session)
            .pending_send
            .map(|p| p.idempotency_key),
        Some(key.clone()),
        "the pending send keeps its key across retries"
    );

    // Recovery: the stream comes back, the send goes through once with its key.
    sim.sim.set_faults(Faults::default());
    until(
        "the message recorded by the simulator",
        || (sim.sim.messages_with_key(&key) == 1).then_some(()),
        || pty.screen_text(),
    );
    wait_delivered_and_shown_once(&pty, &sim.sim, text);
    assert_eq!(sim.sim.messages_with_key(&key), 1);
    until_pending_send_cleared(&pty, &home, &sim.sim, &session);

    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn a_pending_send_survives_a_crash_and_is_delivered_once_with_the_same_key() {
    let sim = start_sim();
    let (session, home, mut pty) = attach_new(&sim.sim, "crash", TIMEOUT);

    // Sends refused with a long Retry-After: the message stays pending when the app dies.
    refuse_sends(&sim.sim, 30);
    let text = "do not lose me in a crash";
    type_and_send(&mut pty, text);
    let key = until(
        "the pending send on disk (the box's draft empty), the first attempt refused",
        || {
            let state = on_disk(&home, &sim.sim, &session);
            let pending = state.pending_send?;
            (pending.text == text
                && state.draft.is_empty()
                && refused_so_far(&sim.sim, REFUSALS) >= 1)
                .then_some(pending.idempotency_key)
        },
        || pty.screen_text(),
    );
    kill9(&mut pty);
    assert_eq!(sim.sim.messages_with_key(&key), 0);

    // Restart while sends are still refused (now with Retry-After: 1): the unconfirmed
    // send is shown pending again and is being re-sent.
    refuse_sends(&sim.sim, 1);
    let refused_before_restart = refused_so_far(&sim.sim, REFUSALS);
    let mut pty = attach_tall(&session, &home, &sim.sim);
    pty.wait_for(
        "the unconfirmed send shown pending above the box",
        |s| shown_pending(s, text),
        TIMEOUT,
    );
    until(
        "the re-send attempted (and refused)",
        || (refused_so_far(&sim.sim, REFUSALS) > refused_before_restart).then_some(()),
        || pty.screen_text(),
    );
    assert_eq!(
        on_disk(&home, &sim.sim, &session)
            .pending_send
            .map(|p| p.idempotency_key),
        Some(key.clone()),
        "the same key after the restart"
    );

    sim.sim.set_faults(Faults::default());
    until(
        "the message recorded by the simulator",
        || (sim.sim.messages_with_key(&key) == 1).then_some(()),
        || pty.screen_text(),
    );
    wait_delivered_and_shown_once(&pty, &sim.sim, text);
    assert_eq!(sim.sim.messages_with_key(&key), 1, "delivered once");
    until_pending_send_cleared(&pty, &home, &sim.sim, &session);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn a_draft_typed_before_a_crash_is_back_in_the_box() {
    let sim = start_sim();
    let (session, home, mut pty) = attach_new(&sim.sim, "draft", TIMEOUT);
    let text = "half a thought, never sent";
    pty.send_keys(text);
    until(
        "the draft on disk",
        || (on_disk(&home, &sim.sim, &session).draft == text).then_some(()),
        || pty.screen_text(),
    );
    kill9(&mut pty);

    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.wait_for(
        "the draft back in the box",
        |s| input_box(s).contains(text),
        TIMEOUT,
    );
    assert_eq!(on_disk(&home, &sim.sim, &session).pending_send, None);
    pty.send_keys(keys::CTRL_C);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn refusals_that_outlast_the_retries_are_reported_and_the_draft_waits_in_the_box() {
    let sim = start_sim();
    let (session, home, mut pty) = attach_new(&sim.sim, "reported", TIMEOUT);
    refuse_sends(&sim.sim, 1);
    let text = "refused until the retries run out";
    type_and_send(&mut pty, text);
    let key = until(
        "the pending send on disk",
        || {
            on_disk(&home, &sim.sim, &session)
                .pending_send
                .map(|p| p.idempotency_key)
        },
        || pty.screen_text(),
    );
    // Every attempt answered 503: settled as refused, nothing recorded, reported in the
    // status bar, the text still in the box (and on disk as the draft).
    until_pending_send_cleared(&pty, &home, &sim.sim, &session);
    let attempts = refused_so_far(&sim.sim, REFUSALS);
    assert!(
        attempts >= 2,
        "retried after Retry-After: {attempts} attempts"
    );
    assert_eq!(sim.sim.messages_with_key(&key), 0);
    pty.wait_for(
        "the refusal reported, the draft kept",
        |s| {
            let bar = status_line(s);
            input_box(s).contains(text) && bar.contains("message not sent — server trouble")
        },
        TIMEOUT,
    );
    until(
        "the text given back saved as the draft",
        || (on_disk(&home, &sim.sim, &session).draft == text).then_some(()),
        || pty.screen_text(),
    );

    // Back: Enter again sends it, once.
    sim.sim.set_faults(Faults::default());
    pty.send_keys(keys::ENTER);
    wait_delivered_and_shown_once(&pty, &sim.sim, text);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}
