//! `gobare-tui diff` of a simulator session, applied to a local git checkout of the
//! session's starting files (the workspace as first listed: the scenarios' repository
//! with the seed `environment.files` it lacks), gives the workspace's content
//! byte for byte; `--apply` does the same after `git apply --check`, and on a conflict
//! changes nothing; a change whose diff is missing is named and left out, or filled from a
//! fresh snapshot with `--refresh`.

use crate::support::actions::{Rig, client_for, message};
use crate::support::cli::Home;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::model::{CreateSession, Input, SessionStatus};
use gobare_sim::SimConfig;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

const SEEDS: [(&str, &str); 4] = [
    (
        "src/lib.rs",
        "//! A small library.\n\npub const VERSION: u32 = 1;\n\npub fn hello() -> &'static str {\n    \"hello\"\n}\n",
    ),
    ("docs/old.md", "# Old\n\nNobody reads this.\n"),
    ("README.md", "# Project\n"),
    (
        "src/export.ts",
        "  const lines = [HEADER];\n  let total = 0;\n  for (const row of rows) {\n    lines.push(formatRow(row));\n    total += Math.round(row.amount * 100) / 100;\n  }\n  lines.push(`TOTAL,,${total.toFixed(2)}`);\n  return lines.join(\"\\n\");\n}\n",
    ),
];

async fn seeded_session(client: &ApiClient) -> String {
    let files: Vec<serde_json::Value> = SEEDS
        .iter()
        .map(|(path, text)| serde_json::json!({"path": path, "data": BASE64.encode(text)}))
        .collect();
    let request = CreateSession {
        environment: Some(serde_json::json!({ "files": files })),
        ..CreateSession::default()
    };
    client
        .create_session(&request, &IdempotencyKey::new())
        .await
        .unwrap()
        .id
}

async fn play(rig: &Rig, id: &str, texts: &[&str]) {
    for (n, text) in texts.iter().enumerate() {
        let input: Input = message(text);
        rig.client
            .send(id, &input, &IdempotencyKey::new())
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let page = gobare_api::client::Page::ordered(gobare_api::client::Order::Asc);
            let turns = rig.client.list_turns(id, &page).await.unwrap().data;
            let session = rig.session(id).await;
            if turns.len() == n + 1
                && turns.iter().all(|t| t.completed_at.is_some())
                && session.status == SessionStatus::Idle
            {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "{turns:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The workspace's files, from a fresh snapshot. A workspace not up yet refuses the
/// snapshot while it starts: asked again until it is up.
async fn workspace(client: &ApiClient, id: &str) -> BTreeMap<String, String> {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let tree = loop {
        match client.list_files(id, true).await {
            Ok(tree) => break tree,
            Err(e) => {
                assert!(tokio::time::Instant::now() < deadline, "{e}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    let mut files = BTreeMap::new();
    for entry in tree.data {
        if entry.kind.as_deref() == Some("directory") {
            continue;
        }
        let file = client.file_content(id, &entry.path).await.unwrap();
        assert!(!file.truncated);
        files.insert(entry.path, file.content);
    }
    files
}

/// A git checkout holding `files`, committed.
fn checkout(dir: &Path, files: &BTreeMap<String, String>) {
    for (path, text) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            "seed",
        ],
    ] {
        let done = Command::new("git")
            .args(args)
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(done.success(), "git {args:?}");
    }
}

/// Every file under `dir` but `.git`, by relative path.
fn files_in(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

async fn diff(rig: &Rig, home: &Home, args: &[&str]) -> std::process::Output {
    let api = rig.sim.url().to_string();
    let mut all = vec!["--api", api.as_str(), "diff"];
    all.extend_from_slice(args);
    tokio::time::timeout(
        TIMEOUT,
        home.tokio_command(&all)
            .env("GOBARE_TOKEN", rig.sim.token())
            .output(),
    )
    .await
    .expect("diff ends")
    .unwrap()
}

fn git_apply(dir: &Path, patch: &[u8]) {
    let file = dir.join("../changes.patch");
    std::fs::write(&file, patch).unwrap();
    let out = Command::new("git")
        .args(["apply", "--whitespace=nowarn"])
        .arg(&file)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(patch)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_patch_applied_to_the_starting_files_gives_the_workspace_byte_for_byte() {
    let rig = Rig::start(SimConfig::for_tests()).await;
    let client = client_for(&rig.sim);
    let id = seeded_session(&client).await;
    let starting = workspace(&client, &id).await;
    for (path, text) in SEEDS {
        assert_eq!(starting[path], text);
    }
    play(
        &rig,
        &id,
        &["#edits first", "#edits again", "#quick fix the totals"],
    )
    .await;
    let expected = workspace(&client, &id).await;
    let home = Home::new();

    // The whole session, by `git apply`.
    let out = diff(&rig, &home, &[&id]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let patch = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(
        patch
            .matches("diff --git a/src/lib.rs b/src/lib.rs")
            .count(),
        1,
        "four events on one file are one diff: {patch}"
    );
    assert!(patch.contains("deleted file mode 100644"), "{patch}");
    assert!(patch.contains("new file mode 100644"), "{patch}");
    assert!(
        !patch.contains("scratch.txt"),
        "created and removed: no change: {patch}"
    );
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    checkout(&plain, &starting);
    git_apply(&plain, &out.stdout);
    assert_eq!(files_in(&plain), expected);

    // The same with --apply.
    let applied = dir.path().join("applied");
    std::fs::create_dir(&applied).unwrap();
    checkout(&applied, &starting);
    let out = diff(&rig, &home, &[&id, "--apply", applied.to_str().unwrap()]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(files_in(&applied), expected);

    // A checkout where the library moved on: refused, and nothing changes.
    let moved = dir.path().join("moved");
    std::fs::create_dir(&moved).unwrap();
    checkout(&moved, &starting);
    std::fs::write(moved.join("src/lib.rs"), "//! Someone else's library.\n").unwrap();
    let before = files_in(&moved);
    let out = diff(&rig, &home, &[&id, "--apply", moved.to_str().unwrap()]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("does not apply") && stderr.contains("nothing was changed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("src/lib.rs"),
        "git's reason names the file: {stderr}"
    );
    assert_eq!(files_in(&moved), before);

    // One turn, and its stat.
    let out = diff(&rig, &home, &[&id, "--turn", "2", "--stat"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stat = String::from_utf8(out.stdout).unwrap();
    assert!(stat.contains("src/lib.rs"), "{stat}");
    assert!(stat.contains("notes/todo.md"), "{stat}");
    assert!(!stat.contains("docs/old.md"), "removed in turn 1: {stat}");
    assert!(
        stat.ends_with("2 files changed, 5 insertions(+), 0 deletions(-)\n"),
        "{stat}"
    );
    let out = diff(&rig, &home, &[&id, "--turn", "7"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no turn 7 (it has 3 turns"));
    rig.sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_without_its_diff_is_named_and_left_out_or_filled_from_a_fresh_snapshot() {
    let rig = Rig::start(SimConfig::for_tests()).await;
    let client = client_for(&rig.sim);
    let id = seeded_session(&client).await;
    let starting = workspace(&client, &id).await;
    play(&rig, &id, &["#edits", "#undiffed"]).await;
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();

    let out = diff(&rig, &home, &[&id]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("incomplete: src/lib.rs"), "{stderr}");
    assert!(stderr.contains("incomplete: notes/todo.md"), "{stderr}");
    assert!(stderr.contains("(--refresh takes a new one)"), "{stderr}");
    let patch = String::from_utf8(out.stdout).unwrap();
    assert!(
        !patch.contains("src/lib.rs"),
        "left out, not wrong: {patch}"
    );
    assert!(patch.contains("docs/old.md"), "the rest is there: {patch}");
    let refused = dir.path().join("refused");
    std::fs::create_dir(&refused).unwrap();
    checkout(&refused, &starting);
    let before = files_in(&refused);
    let out = diff(&rig, &home, &[&id, "--apply", refused.to_str().unwrap()]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was changed"));
    assert_eq!(files_in(&refused), before);

    // A fresh snapshot fills the cut note (a file the session created, known whole), but
    // not the library: its diffs never showed where the seed file ended, so what the
    // undiffed change did to it cannot be told, and it stays out rather than wrong.
    let out = diff(&rig, &home, &[&id, "--refresh"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("incomplete: src/lib.rs"), "{stderr}");
    assert!(!stderr.contains("notes/todo.md"), "{stderr}");
    let filled = dir.path().join("filled");
    std::fs::create_dir(&filled).unwrap();
    checkout(&filled, &starting);
    git_apply(&filled, &out.stdout);
    let mut expected = workspace(&client, &id).await;
    let mut got = files_in(&filled);
    assert!(expected["notes/todo.md"].contains("- [ ] write it up"));
    assert_ne!(expected.remove("src/lib.rs"), got.remove("src/lib.rs"));
    assert_eq!(got, expected);
    rig.sim.shutdown().await;
}
