//! Keys a person can trust, as people press them: the real binary in a pseudo-terminal against
//! the simulator, each rule checked on the simulator's record (what it accepted, what was
//! decided) and on the screen.

use crate::support;

use std::time::Duration;

use crate::support::app::{
    attach, bottom, input_box, input_box_cells, launch, status_line, tab_to_decide,
};
use crate::support::live::{attach_new, pinging_sim, wait_live};
use crate::support::sim::Sim;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(40);

fn accepted_texts(sim: &Sim) -> Vec<String> {
    sim.sim
        .accepted_messages()
        .into_iter()
        .map(|m| m.text)
        .collect()
}

/// POSTs of any input (messages, answers, decisions) the simulator received.
fn inputs_posted(sim: &Sim, session: &str) -> usize {
    let path = format!("POST /v1/sessions/{session}/events");
    sim.sim
        .requests()
        .iter()
        .filter(|r| r.starts_with(&path))
        .count()
}

fn send(pty: &mut Pty, text: &str) {
    pty.send_keys(text);
    pty.send_keys(keys::ENTER);
}

#[test]
fn esc_pressed_again_and_again_then_a_sentence_is_one_message() {
    let sim = pinging_sim(1.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "habits", TIMEOUT);
    send(&mut pty, "a long job #long");
    pty.wait_for(
        "the long turn to run",
        |s| bottom(s, 8).contains("Ctrl+X cancel"),
        TIMEOUT,
    );
    // Into the panes and Esc out, then Esc in the box again and again: each press is seen
    // (the status bar answers it) before the next.
    let before = inputs_posted(&sim, &session);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for("the panes", |s| bottom(s, 5).contains("Panes ·"), TIMEOUT);
    pty.send_keys(keys::ESC);
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);
    for _ in 0..2 {
        pty.send_keys(keys::TAB);
        pty.wait_for(
            "Tab's word",
            |s| status_line(s).contains("nothing waits on you"),
            TIMEOUT,
        );
        pty.send_keys(keys::ESC);
        pty.wait_for(
            "Esc's word",
            |s| status_line(s).contains("Ctrl+X cancels the turn"),
            TIMEOUT,
        );
    }
    // No Esc cancelled the turn: nothing was posted (a cancel is an input POST too), and
    // the turn still runs.
    assert_eq!(
        inputs_posted(&sim, &session),
        before,
        "an Esc posted an input (a cancel?)"
    );
    assert!(
        pty.with_screen(|s| bottom(s, 8).contains("Ctrl+X cancel")),
        "the turn still runs: {}",
        pty.screen_text()
    );
    let sentence = "a question: can you also export the tests?";
    send(&mut pty, sentence);
    pty.wait_for(
        "the sentence accepted",
        |_| accepted_texts(&sim).iter().any(|t| t == sentence),
        TIMEOUT,
    );
    assert_eq!(
        accepted_texts(&sim),
        ["a long job #long", sentence],
        "one whole message, nothing else"
    );
    assert!(
        pty.with_screen(|s| bottom(s, 5).contains("Typing ·")),
        "{}",
        pty.screen_text()
    );
}

#[test]
fn tab_before_an_approval_arrives_leaves_the_keys_as_text() {
    let sim = pinging_sim(1.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "race", TIMEOUT);
    pty.send_keys(keys::TAB);
    pty.wait_for(
        "nothing waits",
        |s| status_line(s).contains("nothing waits on you"),
        TIMEOUT,
    );
    send(&mut pty, "restart the worker #approval");
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    let before = inputs_posted(&sim, &session);
    // The habit: y y, typed as if Tab had taken them to the decision.
    pty.send_keys("y y");
    pty.wait_for("y y in the box", |s| bottom(s, 4).contains("y y"), TIMEOUT);
    assert_eq!(
        inputs_posted(&sim, &session),
        before,
        "no decision was sent"
    );
    assert!(
        pty.with_screen(|s| s.contents().contains("The agent asks to run a tool")),
        "the approval still waits"
    );
}

#[test]
fn a_sensitive_approval_is_not_passed_by_y_then_enter() {
    let sim = pinging_sim(1.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "sensitive", TIMEOUT);
    send(&mut pty, "restart the worker #approval");
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    tab_to_decide(
        &mut pty,
        |s| bottom(s, 14).contains("Deciding") && bottom(s, 14).contains("approve (asks again)"),
        TIMEOUT,
    );
    sim.until_waiting(&session);
    let call_id = sim.required_actions(&session)[0].call_id.clone();
    let before = inputs_posted(&sim, &session);
    pty.send_keys("y");
    pty.wait_for(
        "the second step",
        |s| bottom(s, 8).contains("SENSITIVE"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "Enter refused in words",
        |s| status_line(s).contains("Enter does not approve"),
        TIMEOUT,
    );
    assert_eq!(inputs_posted(&sim, &session), before, "Enter approved");
    pty.send_keys("y");
    pty.wait_for(
        "the approval to land",
        |s| status_line(s).contains("approved"),
        TIMEOUT,
    );
    assert_eq!(inputs_posted(&sim, &session), before + 1);
    // What was decided, on the record: approved, so the agent ran the very tool call it
    // had asked about (a denial says so instead and runs nothing).
    support::app::until(
        "the approved call to run",
        TIMEOUT,
        || {
            sim.items(&session)
                .iter()
                .any(|i| {
                    i.detail["event"] == "agent.tool_call" && i.detail["toolCallId"] == call_id
                })
                .then_some(())
        },
        || format!("{:#?}\n{}", sim.items(&session), pty.screen_text()),
    );
    assert!(
        sim.required_actions(&session).is_empty(),
        "the approval was resolved"
    );
    // What is typed right after a decision is held, not sent; Esc types again and
    // Ctrl+Y puts the held text back in the box.
    pty.send_keys("es and more");
    pty.wait_for(
        "the hold said",
        |s| status_line(s).contains("held, not sent: \"es and more\""),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.send_keys(keys::ESC);
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);
    pty.send_keys("\x19");
    pty.wait_for(
        "the held text back in the box",
        |s| bottom(s, 4).contains("es and more"),
        TIMEOUT,
    );
    assert_eq!(accepted_texts(&sim), ["restart the worker #approval"]);
}

#[test]
fn an_answer_typed_for_a_call_that_expires_stays_until_a_second_enter() {
    let sim = pinging_sim(1.0);
    let session = sim.sim.create_session(Some("expiring"));
    sim.sim.declare_function(&session, "lookup_order", Some(1));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    send(&mut pty, "check the order #expiring");
    pty.wait_for(
        "the call and its countdown",
        |s| s.contents().contains("needs a function result") && s.contents().contains("expires in"),
        TIMEOUT,
    );
    pty.send_keys("order A-4471 shipped");
    pty.wait_for(
        "the call to expire",
        |s| s.contents().contains("expired unanswered"),
        TIMEOUT,
    );
    let before = inputs_posted(&sim, &session);
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the word on Enter",
        |s| status_line(s).contains("Enter sends this as a message"),
        TIMEOUT,
    );
    assert!(
        pty.with_screen(|s| bottom(s, 4).contains("order A-4471 shipped")),
        "the draft stays: {}",
        pty.screen_text()
    );
    assert_eq!(
        inputs_posted(&sim, &session),
        before,
        "nothing sent on the first Enter"
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "sent as a message",
        |_| {
            accepted_texts(&sim)
                .iter()
                .any(|t| t == "order A-4471 shipped")
        },
        TIMEOUT,
    );
}

#[test]
fn shift_tab_enters_the_panes_which_say_so_and_ctrl_c_quits_at_once_when_nothing_is_lost() {
    let sim = pinging_sim(1.0);
    let (_, _home, mut pty) = attach_new(&sim.sim, "panes", TIMEOUT);
    pty.send_keys("a draft");
    // Waited for whole (a frame may come in more than one read), so a box that never
    // dims, or stays dim, times out here.
    let all_dim = |s: &vt100::Screen| input_box_cells(s).iter().all(|(_, dim)| *dim);
    let none_dim = |s: &vt100::Screen| input_box_cells(s).iter().all(|(_, dim)| !dim);
    pty.wait_for(
        "typing: nothing in the box is dim",
        |s| none_dim(s) && input_box(s).contains("a draft"),
        TIMEOUT,
    );
    pty.send_keys(keys::SHIFT_TAB);
    // The panes are announced and look different: the whole box (frame, title, its
    // words) is dimmed.
    pty.wait_for(
        "the panes, announced, the box dimmed",
        |s| {
            bottom(s, 5).contains("keys are commands here · Esc to type")
                && status_line(s).contains("keys → Transcript pane")
                && all_dim(s)
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "typing, the draft back, nothing in the box dim",
        |s| bottom(s, 5).contains("Typing ·") && input_box(s).contains("a draft") && none_dim(s),
        TIMEOUT,
    );
    // Ctrl+U (readline's kill-line) empties the box: nothing is left to lose.
    pty.send_keys("\x15");
    pty.wait_for(
        "the box empty",
        |s| !input_box(s).contains("a draft"),
        TIMEOUT,
    );
    // Nothing runs, nothing waits, nothing typed: Ctrl+C quits without asking.
    pty.send_keys(keys::CTRL_C);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}\n{}", pty.screen_text());
    assert!(accepted_texts(&sim).is_empty());
}

#[test]
fn approving_with_a_note_sends_the_decision_then_the_note_as_a_steer_while_the_turn_runs() {
    let sim = pinging_sim(1.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "with a note", TIMEOUT);
    send(&mut pty, "restart the worker #approval");
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    pty.send_keys("yes but only the export worker");
    pty.wait_for(
        "the note in the box",
        |s| bottom(s, 4).contains("only the export worker"),
        TIMEOUT,
    );
    tab_to_decide(
        &mut pty,
        |s| s.contents().contains("a note never narrows"),
        TIMEOUT,
    );
    let before = inputs_posted(&sim, &session);
    pty.send_keys("y");
    pty.wait_for(
        "the second step",
        |s| bottom(s, 8).contains("SENSITIVE"),
        TIMEOUT,
    );
    pty.send_keys("y");
    // The steer is accepted only while a turn runs (the simulator refuses it otherwise).
    pty.wait_for(
        "the note, steering the turn",
        |s| s.contents().contains("you · steer") && s.contents().contains("only the export worker"),
        TIMEOUT,
    );
    assert_eq!(
        inputs_posted(&sim, &session),
        before + 2,
        "a decision and a steer"
    );
    assert_eq!(
        accepted_texts(&sim),
        ["restart the worker #approval"],
        "the note was not queued as a message"
    );
}

#[test]
fn a_read_only_token_is_said_at_once_and_enter_keeps_the_text_without_a_send() {
    let sim = pinging_sim(1.0);
    let session = sim.sim.create_session(Some("watch only"));
    let token = sim.sim.mint_token(&["sessions:read"]);
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch(&["attach", &session], &home)
        .api(sim.sim.url().as_str(), &token)
        .spawn();
    pty.wait_for(
        "the read-only word, before any key (it stays in the status bar)",
        |s| status_line(s).contains("read-only token"),
        TIMEOUT,
    );
    wait_live(&pty, TIMEOUT);
    send(&mut pty, "please start");
    pty.wait_for(
        "the text kept and the reason said again",
        |s| {
            bottom(s, 4).contains("please start")
                && status_line(s).contains("read-only token: you can watch, not send or decide")
        },
        TIMEOUT,
    );
    assert_eq!(inputs_posted(&sim, &session), 0, "nothing was sent");
    assert!(accepted_texts(&sim).is_empty());
}

#[test]
fn readline_keys_edit_the_box_and_the_message_is_what_remains() {
    let sim = pinging_sim(1.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "readline", TIMEOUT);
    // Each step: the keys as a terminal sends them (Alt as an ESC prefix, Ctrl+_ as 0x1F),
    // then the box as that edit leaves it, seen before the next step.
    let box_has = |pty: &Pty, what: &str, text: &str, gone: Option<&str>| {
        pty.wait_for(
            what,
            |s| {
                let b = input_box(s);
                b.contains(text) && gone.is_none_or(|g| !b.contains(g))
            },
            TIMEOUT,
        )
    };
    pty.send_keys("alpha beta gamma");
    box_has(&pty, "the typed text", "alpha beta gamma", None);
    // Ctrl+A: to the start, where "x " goes in.
    pty.send_keys("\x01");
    pty.send_keys("x ");
    box_has(&pty, "Ctrl+A", "x alpha beta gamma", None);
    // Alt+F: past "alpha"; Alt+D: kills " beta".
    pty.send_keys("\x1bf");
    pty.send_keys("\x1bd");
    box_has(&pty, "Alt+F, Alt+D", "x alpha gamma", Some("beta"));
    // Ctrl+E: to the end; Ctrl+W kills the word typed there.
    pty.send_keys("\x05");
    pty.send_keys(" delta");
    box_has(&pty, "Ctrl+E", "x alpha gamma delta", None);
    pty.send_keys("\x17");
    box_has(&pty, "Ctrl+W", "x alpha gamma", Some("delta"));
    // Alt+B: back to the start of "gamma"; Ctrl+K kills from there to the end.
    pty.send_keys("\x1bb");
    pty.send_keys("\x0b");
    box_has(&pty, "Alt+B, Ctrl+K", "x alpha", Some("gamma"));
    // Ctrl+_: the kill undone.
    pty.send_keys("\x1f");
    box_has(&pty, "Ctrl+_", "x alpha gamma", None);
    pty.send_keys("\x05");
    pty.send_keys("end");
    box_has(&pty, "the last word", "x alpha gamma end", None);
    let before = inputs_posted(&sim, &session);
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the message accepted",
        |_| !accepted_texts(&sim).is_empty(),
        TIMEOUT,
    );
    assert_eq!(accepted_texts(&sim), ["x alpha gamma end"]);
    assert_eq!(inputs_posted(&sim, &session), before + 1, "one send");
}

#[test]
fn a_draft_begun_before_a_question_arrives_is_sent_as_a_message() {
    let sim = pinging_sim(1.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "draft first", TIMEOUT);
    // The draft is in the box before anything asks: the question is started on the
    // simulator (as another client would) only once the box shows it.
    pty.send_keys("run the tests");
    pty.wait_for(
        "the draft in the box",
        |s| input_box(s).contains("run the tests"),
        TIMEOUT,
    );
    sim.within(|s| s.send_message(&session, "which way? #question"));
    pty.wait_for_text("The agent asks you", TIMEOUT);
    sim.until_waiting(&session);
    let question = sim.required_actions(&session);
    assert_eq!(question.len(), 1, "{question:?}");
    assert!(
        pty.with_screen(|s| input_box(s).contains("run the tests")),
        "the draft stays in the box: {}",
        pty.screen_text()
    );
    let before = inputs_posted(&sim, &session);
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the draft accepted as a message",
        |_| accepted_texts(&sim).iter().any(|t| t == "run the tests"),
        TIMEOUT,
    );
    assert_eq!(
        accepted_texts(&sim),
        ["which way? #question", "run the tests"]
    );
    assert_eq!(inputs_posted(&sim, &session), before + 1, "one POST");
    assert_eq!(
        sim.required_actions(&session),
        question,
        "the question still waits, unanswered by the draft"
    );
    // What is typed now, with the question in sight, answers it.
    pty.wait_for(
        "the box to say Enter answers",
        |s| bottom(s, 6).contains("Enter answer"),
        TIMEOUT,
    );
    send(&mut pty, "patch");
    support::app::until(
        "the question answered",
        TIMEOUT,
        || sim.required_actions(&session).is_empty().then_some(()),
        || pty.screen_text(),
    );
    assert_eq!(inputs_posted(&sim, &session), before + 2);
    assert_eq!(
        accepted_texts(&sim),
        ["which way? #question", "run the tests"],
        "the answer was not a message"
    );
}

/// Ctrl+C with a turn running (`#long`) or a decision waiting (`#approval`), the box empty:
/// it asks, in words that say what is at stake; `n` keeps everything as it was (nothing
/// sent, the turn running or the decision waiting); a second Ctrl+C quits.
#[test]
fn ctrl_c_asks_when_a_turn_runs_or_a_decision_waits_and_a_second_ctrl_c_quits() {
    for (tag, at_stake) in [
        ("#long", "a turn is running"),
        ("#approval", "the agent waits for your decision"),
    ] {
        let sim = pinging_sim(1.0);
        let (session, _home, mut pty) = attach_new(&sim.sim, "quitting", TIMEOUT);
        send(&mut pty, &format!("the job {tag}"));
        if tag == "#approval" {
            pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
            sim.until_waiting(&session);
        } else {
            pty.wait_for(
                "the long turn to run",
                |s| bottom(s, 8).contains("Ctrl+X cancel"),
                TIMEOUT,
            );
        }
        let waiting = sim.required_actions(&session);
        let before = inputs_posted(&sim, &session);
        pty.send_keys(keys::CTRL_C);
        pty.wait_for(
            "the quit question, saying what is at stake",
            |s| {
                let b = bottom(s, 6);
                b.contains("Quit?") && b.contains(at_stake) && b.contains("n/Esc no")
            },
            TIMEOUT,
        );
        pty.send_keys("n");
        pty.wait_for(
            "the question put away",
            |s| !bottom(s, 6).contains("Quit?") && bottom(s, 5).contains("Typing ·"),
            TIMEOUT,
        );
        assert_eq!(
            inputs_posted(&sim, &session),
            before,
            "{tag}: n sent something"
        );
        assert_eq!(
            sim.required_actions(&session),
            waiting,
            "{tag}: what waited still waits"
        );
        if tag == "#long" {
            assert!(
                pty.with_screen(|s| bottom(s, 8).contains("Ctrl+X cancel")),
                "the turn still runs: {}",
                pty.screen_text()
            );
        }
        // Ctrl+C, and Ctrl+C again: quits, having sent nothing.
        pty.send_keys(keys::CTRL_C);
        pty.wait_for(
            "the quit question again",
            |s| bottom(s, 6).contains("Quit?"),
            TIMEOUT,
        );
        pty.send_keys(keys::CTRL_C);
        let status = pty.wait_exit(TIMEOUT);
        assert!(status.success(), "{tag}: {status:?}\n{}", pty.screen_text());
        assert_eq!(
            inputs_posted(&sim, &session),
            before,
            "{tag}: quitting sent"
        );
        assert_eq!(
            sim.required_actions(&session),
            waiting,
            "{tag}: quitting decided nothing"
        );
        assert_eq!(accepted_texts(&sim), [format!("the job {tag}")]);
    }
}

/// Esc pressed again and again from the help, the artifacts overlay, the search bar and a
/// decision: each time the app ends in Typing (a typed word lands in the box), nothing is
/// sent and the approval still waits (Esc on a decision is not "no").
#[test]
fn esc_again_and_again_from_anywhere_ends_in_typing_and_decides_nothing() {
    let sim = pinging_sim(1.0);
    let session = sim.sim.create_session(Some("esc anywhere"));
    sim.sim.add_artifact(
        &session,
        "turn_00000000000000e1",
        "/workspace/outputs/notes.md",
        b"# notes\n".to_vec(),
    );
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    send(&mut pty, "restart the worker #approval");
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    sim.until_waiting(&session);
    let waiting = sim.required_actions(&session);
    let before = inputs_posted(&sim, &session);
    type Opened = fn(&vt100::Screen) -> bool;
    let openings: [(&str, &[&str], Opened); 4] = [
        ("F1 help", &[keys::F1], |s| s.contents().contains("Keys ·")),
        ("the artifacts overlay", &[keys::SHIFT_TAB, "a"], |s| {
            s.contents().contains("Artifacts · 1")
        }),
        ("the search bar", &[keys::SHIFT_TAB, "/"], |s| {
            status_line(s).contains("search:")
        }),
        ("the decision", &[keys::TAB], |s| {
            bottom(s, 14).contains("Deciding")
        }),
    ];
    for (what, open, opened) in openings {
        for (i, key) in open.iter().enumerate() {
            if *key == keys::TAB {
                // The approval may have been on screen less than Tab's moment.
                tab_to_decide(&mut pty, opened, TIMEOUT);
                continue;
            }
            pty.send_keys(key);
            if i + 1 < open.len() {
                pty.wait_for("the panes", |s| bottom(s, 5).contains("Panes ·"), TIMEOUT);
            }
        }
        pty.wait_for(what, opened, TIMEOUT);
        // Four presses, then a word: the word in the box shows every Esc was taken and
        // the app types again.
        pty.send_keys(&keys::ESC_KITTY.repeat(4));
        pty.send_keys("77");
        pty.wait_for(
            &format!("typing again after {what}"),
            |s| !opened(s) && bottom(s, 5).contains("Typing ·") && input_box(s).contains("77"),
            TIMEOUT,
        );
        assert_eq!(
            inputs_posted(&sim, &session),
            before,
            "Esc from {what} sent something"
        );
        assert_eq!(
            sim.required_actions(&session),
            waiting,
            "the approval still waits after Esc from {what}"
        );
        pty.send_keys("\x7f\x7f");
        pty.wait_for(
            "the box empty again",
            |s| !input_box(s).contains("77"),
            TIMEOUT,
        );
    }
    assert!(
        pty.with_screen(|s| s.contents().contains("The agent asks to run a tool")),
        "{}",
        pty.screen_text()
    );
    assert_eq!(accepted_texts(&sim), ["restart the worker #approval"]);
}
