#![cfg(unix)]
//! The demo as a user runs it keeps its store private (issue 49.2): `gobare-tui demo` started
//! from a shell whose umask is 022 (new directories 0755, new files 0644) leaves its data
//! directory and every directory in it 0700 and every file 0600, so another user of the
//! machine cannot read the token from `sim.sqlite`.

use crate::support::app::{COLS, ROWS, quit, status_line};
use crate::support::cli::BIN;
use gobare_test_support::pty::Launch;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(40);

/// Every entry under `dir` (not following links), with its permission bits.
fn modes_under(dir: &Path) -> Vec<(PathBuf, std::fs::FileType, u32)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            found.extend(modes_under(&path));
        }
        found.push((path, meta.file_type(), meta.permissions().mode() & 0o7777));
    }
    found
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

#[test]
fn the_demo_under_umask_022_keeps_its_directories_0700_and_its_files_0600() {
    let home = tempfile::tempdir().unwrap();
    // A file the shell makes under the same umask: what the demo's would be left alone.
    let control = home.path().join("made-under-the-umask");
    let mut pty = Launch::shell(
        "umask 022; : > \"$1\"; exec \"$0\" demo",
        &[BIN, control.to_str().unwrap()],
        home.path(),
    )
    .size(COLS, ROWS)
    .spawn();
    pty.wait_for(
        "the demo, live",
        |s| status_line(s).contains("local demo") && status_line(s).contains("● live"),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success(), "{}", pty.screen_text());
    assert_eq!(mode(&control), 0o644, "the umask was 022");

    let demo = home.path().join("data/gobare-tui/demo");
    assert_eq!(mode(&demo), 0o700, "{}", demo.display());
    let kept = modes_under(&demo);
    let open: Vec<String> = kept
        .iter()
        .filter(|(_, kind, mode)| {
            let private = if kind.is_dir() { 0o700 } else { 0o600 };
            !(kind.is_dir() || kind.is_file()) || *mode != private
        })
        .map(|(path, _, mode)| format!("{mode:o} {}", path.display()))
        .collect();
    assert!(
        open.is_empty(),
        "not private (directories 0700, files 0600, nothing else):\n{}",
        open.join("\n")
    );
    let names: Vec<String> = kept
        .iter()
        .map(|(p, _, _)| p.strip_prefix(&demo).unwrap().display().to_string())
        .collect();
    for name in ["sim.sqlite", "lock", "port", "app"] {
        assert!(names.iter().any(|n| n == name), "{name} kept: {names:?}");
    }
    assert!(
        names.iter().any(|n| n.starts_with("app/")),
        "the app's state is kept beside the store: {names:?}"
    );
}
