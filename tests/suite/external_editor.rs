//! Ctrl+G in the real binary against the simulator: the draft goes to `$VISUAL` (before
//! `$EDITOR`), comes back into the box with what the editor added, and Enter sends it whole;
//! an editor that fails leaves the draft as it was and says so.

use crate::support;
use crate::support::app::{bottom, launch_on, quit, status_line, until};
use crate::support::live::wait_live;
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
const CTRL_G: &str = "\x07";

#[test]
fn ctrl_g_edits_the_draft_in_visual_and_enter_sends_what_came_back() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("editor"));
    let home = tempfile::tempdir().unwrap();
    // The editor: its first run adds a line; later runs spoil the file and fail.
    let ran = home.path().join("ran");
    let script = home.path().join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             if [ -e '{ran}' ]; then printf 'spoiled\\n' > \"$1\"; exit 1; fi\n\
             touch '{ran}'\n\
             printf 'and run the smoke tests\\n' >> \"$1\"\n",
            ran = ran.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut pty = launch_on(&sim.sim, &["attach", &session], &home)
        .env("VISUAL", &script)
        .env("EDITOR", "false")
        .spawn();
    wait_live(&pty, TIMEOUT);

    pty.send_keys("deploy the fix");
    pty.wait_for_text("deploy the fix", TIMEOUT);
    pty.send_keys(CTRL_G);
    pty.wait_for(
        "the draft back with the editor's line",
        |s| {
            let b = bottom(s, 6);
            b.contains("deploy the fix") && b.contains("and run the smoke tests")
        },
        TIMEOUT,
    );
    assert!(ran.exists(), "the editor ran");

    pty.send_keys(CTRL_G);
    pty.wait_for(
        "the failed editor told in the status bar",
        |s| status_line(s).contains("the draft is as it was"),
        TIMEOUT,
    );
    let box_text = pty.with_screen(|s| bottom(s, 6));
    assert!(!box_text.contains("spoiled"), "{box_text}");
    assert!(box_text.contains("and run the smoke tests"), "{box_text}");

    pty.send_keys(keys::ENTER);
    let sent = until(
        "the simulator to accept the message",
        TIMEOUT,
        || sim.sim.accepted_messages().pop(),
        || pty.screen_text(),
    );
    assert_eq!(sent.text, "deploy the fix\nand run the smoke tests");
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn keys_typed_in_the_editor_reach_the_editor_and_none_reach_the_box() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("editor-keys"));
    let home = tempfile::tempdir().unwrap();
    // The editor reads a line from the terminal, as an editor reads keys, once it says it
    // has started.
    let started = home.path().join("started");
    let script = home.path().join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             touch '{started}'\n\
             read line < /dev/tty\n\
             printf '%s\\n' \"$line\" >> \"$1\"\n",
            started = started.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut pty = launch_on(&sim.sim, &["attach", &session], &home)
        .env("VISUAL", &script)
        .spawn();
    wait_live(&pty, TIMEOUT);
    pty.send_keys("first");
    pty.wait_for_text("first", TIMEOUT);
    pty.send_keys(CTRL_G);
    until(
        "the editor to start",
        TIMEOUT,
        || started.exists().then_some(()),
        || pty.screen_text(),
    );
    pty.send_keys("iwritten in the editor\r");
    // In the box, not the editor's echo on the main screen: inside the box's border, under
    // the draft's first line.
    pty.wait_for(
        "the editor's line in the box, whole",
        |s| {
            let b = bottom(s, 6);
            b.contains("│first ") && b.contains("│iwritten in the editor ")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    let sent = until(
        "the simulator to accept the message",
        TIMEOUT,
        || sim.sim.accepted_messages().pop(),
        || pty.screen_text(),
    );
    assert_eq!(sent.text, "first\niwritten in the editor");
    assert!(quit(&mut pty, TIMEOUT).success());
}
