//! Looking back in the real binary against the simulator: `c` copies the selected entry
//! with OSC 52 (credentials redacted), plain and inside tmux's passthrough; web links are
//! written as OSC 8 hyperlinks; `o` runs the configured opener with the selected entry's
//! URL; Enter on an Events row opens the inspector with the event's JSON; Esc clears the
//! selection before it leaves the panes. Home then `j` selects the first entry; a send
//! makes the transcript follow the bottom again. `!` walks the errors newest to oldest, then
//! round to the newest.

use crate::support;
use crate::support::app::{ROWS, bottom, launch_on, quit, until};
use base64::Engine as _;
use gobare_api::model::{EventPayload, Message, Text};
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// The app attached to `session`, with `TMUX` set when `tmux`.
fn attach_with(
    session: &str,
    home: &tempfile::TempDir,
    sim: &gobare_sim::Simulator,
    tmux: bool,
) -> Pty {
    let app = launch_on(sim, &["attach", session], home);
    match tmux {
        true => app.env("TMUX", "/tmp/tmux-1000/default,4242,0").spawn(),
        false => app.spawn(),
    }
}

/// Esc to the panes, then the keys once the panes have them.
fn in_panes(pty: &mut Pty, then: &str) {
    pty.send_keys(keys::SHIFT_TAB);

    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys(then);
}

fn osc52(text: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text);
    format!("\x1b]52;c;{b64}\x07")
}

#[test]
fn c_copies_the_selected_entry_with_osc52_redacted_plain_and_through_tmux() {
    for tmux in [false, true] {
        let sim = support::sim::start(SimConfig::for_tests());
        let session = sim.sim.create_session(Some("copy"));
        sim.sim.emit(
            &session,
            EventPayload::UserMessage(Text {
                text: "deploy with gbr_pat_abcdefghijklmnopqrstuvwxyz0123 now".into(),
            }),
        );
        let home = tempfile::tempdir().unwrap();
        let mut pty = attach_with(&session, &home, &sim.sim, tmux);
        pty.wait_for_text("deploy with", TIMEOUT);
        in_panes(&mut pty, "k");
        pty.wait_for_text("[selected", TIMEOUT);
        pty.send_keys("c");
        let copied = "deploy with gbr_pat_[redacted] now";
        pty.wait_for_text(&format!("copied {} chars", copied.chars().count()), TIMEOUT);

        let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
        let expected = if tmux {
            format!(
                "\x1bPtmux;{}\x1b\\",
                osc52(copied).replace('\x1b', "\x1b\x1b")
            )
        } else {
            osc52(copied)
        };
        assert!(raw.contains(&expected), "tmux {tmux}: no {expected:?}");
        assert!(
            !raw.contains(&osc52(
                "deploy with gbr_pat_abcdefghijklmnopqrstuvwxyz0123 now"
            )),
            "the token was copied"
        );
        if !tmux {
            // Esc clears the selection first, and only then leaves the panes.
            pty.send_keys(keys::ESC);
            pty.wait_for(
                "the selection cleared, still in the panes",
                |s| !s.contents().contains("[selected") && bottom(s, 5).contains("Panes ·"),
                TIMEOUT,
            );
            pty.send_keys(keys::ESC);
            pty.wait_for(
                "typing again",
                |s| bottom(s, 5).contains("Typing ·"),
                TIMEOUT,
            );
        }
        assert!(quit(&mut pty, TIMEOUT).success());
    }
}

#[test]
fn links_are_hyperlinks_o_opens_one_and_enter_inspects_an_event() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("links"));
    sim.sim.open_preview(&session, 3000);
    let home = tempfile::tempdir().unwrap();
    // The opener: a script that writes down the URL it was given.
    let opened = home.path().join("opened");
    let script = home.path().join("opener.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > {}\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!("[links]\nopen = \"{}\"\n", script.display()),
    )
    .unwrap();

    let mut pty = attach_with(&session, &home, &sim.sim, false);
    pty.wait_for_text("preview ready", TIMEOUT);
    let text = pty.screen_text();
    let at = text.find("https://p-").expect("the preview URL on screen");
    let url: String = text[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();

    // Drawn as an OSC 8 hyperlink over the same text; the screen keeps its cells.
    let link = format!("\x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\");
    until(
        "the preview URL as a hyperlink",
        TIMEOUT,
        || {
            String::from_utf8_lossy(&pty.raw_bytes())
                .contains(&link)
                .then_some(())
        },
        || pty.screen_text(),
    );
    assert!(
        pty.screen_text()
            .contains(&format!("preview ready :3000 {url}"))
    );

    // `o` on the selected preview line runs the opener with its URL.
    in_panes(&mut pty, "k");
    pty.wait_for_text("[selected", TIMEOUT);
    pty.send_keys("o");
    let got = until(
        "the opener to run",
        TIMEOUT,
        || {
            std::fs::read_to_string(&opened)
                .ok()
                .filter(|s| !s.is_empty())
        },
        || pty.screen_text(),
    );
    // The opener gets the URL as the url crate normalises it (`https://host/`).
    assert_eq!(got, url::Url::parse(&url).unwrap().as_str());

    // Tab to the Events pane, select its bottom row, Enter: the whole event.
    pty.send_keys(keys::TAB);
    pty.wait_for_text("Events", TIMEOUT);
    pty.send_keys("k");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("preview.ready · seq", TIMEOUT);
    pty.wait_for_text("\"port\": 3000", TIMEOUT);
    assert!(pty.screen_text().contains(&format!("\"url\": \"{url}\"")));
    pty.send_keys(keys::ESC);
    until(
        "the inspector closed",
        TIMEOUT,
        || (!pty.screen_text().contains("\"port\": 3000")).then_some(()),
        || pty.screen_text(),
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn home_then_j_selects_the_first_entry_and_a_send_follows_the_bottom_again() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("follow"));
    for i in 1..=60 {
        sim.sim.emit(
            &session,
            EventPayload::UserMessage(Text {
                text: format!("message {i}"),
            }),
        );
    }
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach_with(&session, &home, &sim.sim, false);
    pty.wait_for_text("message 60", TIMEOUT);
    // Home, then j: the entry at the top, the first one.
    in_panes(&mut pty, "g");
    pty.wait_for(
        "the top of the transcript",
        |s| s.contents().contains("message 1 "),
        TIMEOUT,
    );
    pty.send_keys("j");
    pty.wait_for_text("[selected", TIMEOUT);
    pty.send_keys("c");
    pty.wait_for_text("copied 9 chars", TIMEOUT);
    let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    assert!(
        raw.contains(&osc52("message 1")),
        "j selected the top entry"
    );

    // A send from the box while the selection holds the view far up: the transcript
    // follows the bottom again, nothing selected, the agent's answer in sight.
    // A click in the box: back to typing with the selection kept.
    let row = ROWS - 2;
    pty.send_keys(&format!("\x1b[<0;10;{row}M\x1b[<0;10;{row}m"));
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);
    pty.send_keys("what changed since then");
    pty.send_keys(keys::ENTER);
    until(
        "the simulator to accept the message",
        TIMEOUT,
        || {
            sim.sim
                .accepted_messages()
                .iter()
                .any(|m| m.text == "what changed since then")
                .then_some(())
        },
        || pty.screen_text(),
    );
    pty.wait_for(
        "the sent message at the bottom, nothing selected",
        |s| {
            let text = s.contents();
            text.contains("what changed since then")
                && !text.contains("[selected")
                && !text.contains("new below")
                && !text.contains("message 1 ")
                && bottom(s, 5).contains("Typing ·")
                && sim.sim.last_seq() > 60
                && text.contains("completed")
        },
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn bang_walks_the_errors_newest_to_oldest_then_round_to_the_newest() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("errors"));
    let events = [
        ("oldest failure", true),
        ("between", false),
        ("middle failure", true),
        ("between again", false),
        ("newest failure", true),
        ("all done", false),
    ];
    for (text, error) in events {
        let payload = if error {
            EventPayload::AgentError(Message {
                message: text.into(),
            })
        } else {
            EventPayload::UserMessage(Text { text: text.into() })
        };
        sim.sim.emit(&session, payload);
    }
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach_with(&session, &home, &sim.sim, false);
    pty.wait_for_text("all done", TIMEOUT);
    in_panes(&mut pty, "");
    // Each `!` then `c`: the copy of what `!` selected, seen (its OSC 52 in the bytes, one
    // more "copied" than before) before the next press.
    let mut copies = Vec::new();
    for _ in 0..4 {
        let before = String::from_utf8_lossy(&pty.raw_bytes())
            .matches("\x1b]52;c;")
            .count();
        pty.send_keys("!");
        pty.wait_for_text("[selected", TIMEOUT);
        pty.send_keys("c");
        let raw = until(
            "the copy",
            TIMEOUT,
            || {
                let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
                (raw.matches("\x1b]52;c;").count() > before).then_some(raw)
            },
            || pty.screen_text(),
        );
        let last = raw.rsplit("\x1b]52;c;").next().unwrap();
        let b64 = &last[..last.find('\x07').expect("the OSC 52 ends")];
        let text = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        copies.push(String::from_utf8(text).unwrap());
    }
    assert_eq!(
        copies,
        [
            "newest failure",
            "middle failure",
            "oldest failure",
            "newest failure"
        ]
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}
