//! Publishing the preview from the panes against the simulator: `p` asks first, `n` leaves
//! it alone, `y` publishes (the simulator's request record) and the Workspace pane shows
//! the public URL, linked with OSC 8 in the bytes written to the terminal; `p` again
//! unpublishes.

use crate::support;
use crate::support::app::{attach, bottom, quit, status_line, until};
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn p_asks_then_publishes_and_unpublishes_the_preview() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("preview"));
    sim.sim.open_preview(&session, 3000);
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "live, the preview not published",
        |s| status_line(s).contains("● live") && s.contents().contains("not published"),
        TIMEOUT,
    );
    let preview_writes = || {
        sim.sim
            .requests()
            .into_iter()
            .filter(|r| r.ends_with(&format!("/v1/sessions/{session}/preview")))
            .collect::<Vec<_>>()
    };

    pty.send_keys(keys::SHIFT_TAB);

    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("p");
    pty.wait_for_text("Publish the preview?", TIMEOUT);
    pty.send_keys("n");
    pty.wait_for_text("preview left as it was", TIMEOUT);
    assert!(preview_writes().is_empty(), "{:?}", preview_writes());

    pty.send_keys("p");
    pty.wait_for_text("Publish the preview?", TIMEOUT);
    // The y-then-Enter habit: Enter answers nothing here, and says so.
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("Enter does not answer this", TIMEOUT);
    assert!(
        preview_writes().is_empty(),
        "Enter published: {:?}",
        preview_writes()
    );
    pty.send_keys("y");
    let published = format!("https://s-{}.gobare.dev", &session[..8]);
    pty.wait_for_text(&published, TIMEOUT);
    let link = format!("\x1b]8;;{published}\x1b\\{published}\x1b]8;;\x1b\\");
    until(
        "the public URL written as an OSC 8 hyperlink",
        TIMEOUT,
        || {
            let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
            raw.contains(&link).then_some(())
        },
        || format!("{:?}", String::from_utf8_lossy(&pty.raw_bytes())),
    );
    assert_eq!(
        preview_writes(),
        vec![format!("POST /v1/sessions/{session}/preview")]
    );

    pty.send_keys("p");
    pty.wait_for_text("Unpublish the preview?", TIMEOUT);
    pty.send_keys("y");
    until(
        "the public URL gone from the pane",
        TIMEOUT,
        || (!pty.screen_text().contains(&published)).then_some(()),
        || pty.screen_text(),
    );
    assert_eq!(
        preview_writes(),
        vec![
            format!("POST /v1/sessions/{session}/preview"),
            format!("DELETE /v1/sessions/{session}/preview"),
        ]
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}
