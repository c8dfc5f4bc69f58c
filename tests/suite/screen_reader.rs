//! The screen-reader mode and `follow`, as a person uses them: the real binary in a pty
//! against the simulator. What is checked is what a screen reader gets: the bytes written
//! (no alternate screen, no clear, no absolute or upward cursor move), the lines in order,
//! and what was decided on the simulator's record.

use crate::support;

use std::time::Duration;

use crate::support::app::spawn;
use crate::support::live::pinging_sim;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(40);

/// The lines as a terminal leaves them: each ends at `\r\n`, and what a carriage return
/// and an erase wrote over (the input line) is gone.
fn lines_of(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    text.split("\r\n")
        .map(|l| {
            let last = l.rsplit('\r').next().unwrap_or_default();
            strip_csi(last)
        })
        .collect()
}

fn strip_csi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Every sequence that swaps or clears the screen, moves the cursor to an absolute place
/// or up, scrolls, or resets.
fn forbidden_sequences(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut found = Vec::new();
    let mut rest = text.as_ref();
    while let Some(at) = rest.find('\x1b') {
        let seq = &rest[at + 1..];
        if let Some(csi) = seq.strip_prefix('[') {
            let end = csi
                .find(|c: char| ('@'..='~').contains(&c))
                .unwrap_or(csi.len().saturating_sub(1));
            let (params, last) = csi.split_at(end);
            let last = last.chars().next().unwrap_or(' ');
            let screen_swap = params.starts_with('?')
                && params[1..]
                    .split(';')
                    .any(|p| ["1049", "1047", "47"].contains(&p));
            let moves = !params.starts_with('?')
                && !params.starts_with('>')
                && matches!(
                    last,
                    'H' | 'f' | 'd' | 'G' | '`' | 'A' | 'F' | 'J' | 'r' | 'S' | 'T'
                );
            if screen_swap || moves {
                found.push(format!("ESC[{params}{last}"));
            }
        } else if seq.starts_with('M') || seq.starts_with('c') || seq.starts_with('8') {
            found.push(format!("ESC{}", &seq[..1]));
        }
        rest = &rest[at + 1..];
    }
    found
}

fn position(lines: &[String], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{}", lines.join("\n")))
}

fn wait_for_line(pty: &Pty, needle: &str) {
    support::app::until(
        needle,
        TIMEOUT,
        || {
            lines_of(&pty.raw_bytes())
                .iter()
                .any(|l| l.contains(needle))
                .then_some(())
        },
        || lines_of(&pty.raw_bytes()).join("\n"),
    );
}

#[test]
fn a_turn_with_an_approval_reads_as_ordered_lines_and_is_answered_with_the_same_keys() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("spoken"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["--screen-reader", "attach", &session], &home, &sim.sim);
    wait_for_line(&pty, "turned on by --screen-reader");
    pty.send_keys("restart the worker #approval");
    pty.send_keys(keys::ENTER);
    wait_for_line(&pty, "waiting for you: The agent asks to run a tool");
    sim.until_waiting(&session);
    let call_id = sim.required_actions(&session)[0].call_id.clone();
    // Typing never decides: `y` in the box is text, and Tab is what starts deciding.
    // Tab decides what has been said a moment: pressed at once, it is pressed again.
    support::app::tab_to_decide(
        &mut pty,
        |s| s.contents().contains("approve (asks again)"),
        TIMEOUT,
    );
    pty.send_keys("y");
    wait_for_line(&pty, "Approve this SENSITIVE action?");
    pty.send_keys(keys::ENTER);
    wait_for_line(&pty, "Enter does not approve");
    assert!(
        !sim.required_actions(&session).is_empty(),
        "Enter passed a sensitive approval"
    );
    pty.send_keys("y");
    wait_for_line(&pty, "approved");
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
        || lines_of(&pty.raw_bytes()).join("\n"),
    );
    wait_for_line(&pty, "turn completed");
    pty.send_keys(keys::CTRL_C);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}");

    let bytes = pty.raw_bytes();
    assert_eq!(forbidden_sequences(&bytes), Vec::<String>::new());
    let lines = lines_of(&bytes);
    let order = [
        "turned on by --screen-reader",
        "you: restart the worker #approval",
        "agent: working",
        "waiting for you: The agent asks to run a tool",
        "y approve (asks again)",
        "Approve this SENSITIVE action?",
        "approval for ",
        "turn completed",
    ];
    let at: Vec<usize> = order.iter().map(|n| position(&lines, n)).collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "out of order {at:?}:\n{}",
        lines.join("\n")
    );
    let approval = &lines[position(&lines, "approval for ")];
    assert!(approval.ends_with(": approved"), "{approval}");
    // Said once: what waits, and its outcome.
    for once in [
        "waiting for you: The agent asks to run a tool",
        "approval for ",
    ] {
        assert_eq!(
            lines.iter().filter(|l| l.contains(once)).count(),
            1,
            "{once:?} said more than once:\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn follow_prints_the_history_then_live_lines_with_no_escape_sequence() {
    let sim = pinging_sim(10.0);
    let session = sim.sim.create_session(Some("followed"));
    sim.within(|s| s.send_message(&session, "fix the export please"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["follow", &session], &home, &sim.sim);
    wait_for_line(&pty, "you: fix the export please");
    wait_for_line(&pty, "turn completed");
    // Live: a message sent now is followed too.
    sim.within(|s| s.send_message(&session, "and the import"));
    wait_for_line(&pty, "you: and the import");
    support::app::until(
        "the second turn to end",
        TIMEOUT,
        || {
            let lines = lines_of(&pty.raw_bytes());
            (lines
                .iter()
                .filter(|l| l.contains("turn completed"))
                .count()
                == 2)
                .then_some(())
        },
        || lines_of(&pty.raw_bytes()).join("\n"),
    );
    pty.send_keys(keys::CTRL_C);
    pty.wait_exit(TIMEOUT);
    let bytes = pty.raw_bytes();
    assert!(
        !bytes.contains(&0x1b),
        "an escape sequence in follow's output:\n{}",
        String::from_utf8_lossy(&bytes)
    );
    let lines = lines_of(&bytes);
    let first = position(&lines, "you: fix the export please");
    let agent = lines
        .iter()
        .skip(first)
        .position(|l| l.starts_with("agent: "))
        .expect("the agent's answer");
    assert!(agent > 0);
    assert!(position(&lines, "turn completed") > first);
}

/// The fleet is columns redrawn in place: in the screen-reader mode `fleet` says what to use
/// instead (exit status 2) and draws nothing.
#[test]
fn the_fleet_in_the_screen_reader_mode_names_list_and_attach_instead() {
    let home = crate::support::cli::Home::new();
    let out = home
        .std_command(&["fleet"])
        .env("GOBARE_TUI_SCREEN_READER", "1")
        .env("GOBARE_TOKEN", "gbr_pat_placeholder0123456789")
        .env("GOBARE_API", "http://127.0.0.1:9")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("gobare-tui list"), "{stderr}");
    assert!(stderr.contains("gobare-tui attach"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing drawn: {:?}", out.stdout);
}
