#![cfg(unix)]
//! `gobare-tui artifacts` against the simulator: the list (text and JSON), downloads
//! compared byte for byte with the content endpoint, the turn archive extracted and
//! compared, and the refusals: paths outside the directory, symbolic links, existing files
//! without `--force`, and a download cut short.

use crate::support::cli::Home;
use crate::support::cli::{run_against as run, stderr_of as stderr, stdout_of as stdout};
use crate::support::sim::artifact_content;
use gobare_sim::{Faults, SimConfig, Simulator};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(40);
const T1: &str = "turn_00000000000000a1";
const T2: &str = "turn_00000000000000b2";

/// Every byte value, many times: binary content no text handling survives.
fn binary(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 256) as u8).collect()
}

/// Every file under `dir`, relative, sorted (hidden temporaries included).
fn files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

struct Fixture {
    sim: Simulator,
    home: Home,
    session: String,
}

impl Fixture {
    async fn new() -> Fixture {
        let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
        let session = sim.create_session(Some("outputs"));
        Fixture {
            sim,
            home: Home::new(),
            session,
        }
    }

    fn dir(&self, name: &str) -> PathBuf {
        let d = self.home.path(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    async fn run(&self, args: &[&str]) -> Output {
        run(&self.sim, &self.home, args).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifacts_are_listed_as_text_and_json_by_prefix_and_turn() {
    let f = Fixture::new().await;
    let a = f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/report.md",
        b"# Q3\n".to_vec(),
    );
    let b = f.sim.add_artifact(
        &f.session,
        T2,
        "/workspace/outputs/charts/a.png",
        binary(2_500),
    );
    let prefix = &f.session[..8];

    let out = f.run(&["artifacts", prefix]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("/workspace/outputs/report.md "),
        "{text}"
    );
    assert!(
        lines[0].contains(" 5 B  ") && lines[0].contains(T1),
        "{text}"
    );
    assert!(
        lines[1].contains(" 2.5 kB  ") && lines[1].contains(T2),
        "{text}"
    );
    assert!(lines[1].ends_with('Z'), "a UTC time ends the row: {text}");

    let out = f.run(&["artifacts", prefix, "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], a.as_str());
    assert_eq!(rows[0]["path"], "/workspace/outputs/report.md");
    assert_eq!(rows[0]["size_bytes"], 5);
    assert_eq!(rows[1]["id"], b.as_str());
    assert_eq!(rows[1]["turn_id"], T2);
    assert!(rows[1]["created_at"].is_i64());

    let out = f.run(&["artifacts", prefix, "--json", "--turn", T2]).await;
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
    assert!(
        f.sim
            .requests()
            .iter()
            .any(|r| r.contains("/artifacts?") && r.contains(&format!("turn_id={T2}"))),
        "the turn filter is the server's"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_saves_each_artifact_at_its_path_byte_for_byte() {
    let f = Fixture::new().await;
    let old = f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/report.md",
        b"draft".to_vec(),
    );
    let report = f.sim.add_artifact(
        &f.session,
        T2,
        "/workspace/outputs/report.md",
        b"final".to_vec(),
    );
    let chart = f.sim.add_artifact(
        &f.session,
        T2,
        "/workspace/outputs/charts/q3/a.png",
        binary(3 << 20),
    );
    let dir = f.dir("out");

    let out = f
        .run(&["artifacts", &f.session, "--download", dir.to_str().unwrap()])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(files(&dir), ["charts/q3/a.png", "report.md"]);
    for (id, rel) in [(&report, "report.md"), (&chart, "charts/q3/a.png")] {
        let on_disk = std::fs::read(dir.join(rel)).unwrap();
        assert!(
            on_disk == artifact_content(&f.sim, &f.session, id).await,
            "{rel} differs"
        );
    }
    assert_eq!(std::fs::read(dir.join("report.md")).unwrap(), b"final");
    assert!(
        !f.sim.requests().iter().any(|r| r.contains(&old)),
        "the older artifact of the same path is not fetched"
    );
    assert!(stdout(&out).contains(&dir.join("charts/q3/a.png").display().to_string()));
    // stderr is not a terminal here: no progress line.
    assert_eq!(stderr(&out), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_leading_out_of_the_directory_are_refused_before_any_download() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/fine.txt",
        b"ok".to_vec(),
    );
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/../../escape.txt",
        b"pwned".to_vec(),
    );
    let dir = f.dir("nest/out");

    let out = f
        .run(&["artifacts", &f.session, "--download", dir.to_str().unwrap()])
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("refusing /workspace/outputs/../../escape.txt") && err.contains(".."),
        "{err}"
    );
    assert!(files(&f.home.0).iter().all(|p| !p.ends_with("escape.txt")));
    assert!(
        files(&dir).is_empty(),
        "nothing is saved when one path is refused"
    );
    assert!(!f.sim.requests().iter().any(|r| r.ends_with("/content")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symbolic_link_inside_the_directory_is_not_followed() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/link/x.txt",
        b"x".to_vec(),
    );
    let dir = f.dir("out");
    let outside = f.dir("elsewhere");
    std::os::unix::fs::symlink(&outside, dir.join("link")).unwrap();

    let out = f
        .run(&[
            "artifacts",
            &f.session,
            "--download",
            dir.to_str().unwrap(),
            "--force",
        ])
        .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert!(files(&outside).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn existing_files_are_kept_unless_forced() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/report.md",
        b"new".to_vec(),
    );
    let dir = f.dir("out");
    std::fs::write(dir.join("report.md"), "mine").unwrap();
    let args = ["artifacts", &f.session, "--download", dir.to_str().unwrap()];

    let out = f.run(&args).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("exists (use --force"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        "mine"
    );

    let out = f.run(&[&args[..], &["--force"]].concat()).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        "new"
    );
    assert_eq!(files(&dir), ["report.md"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_cut_short_leaves_no_file_and_fails() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/big.bin",
        binary(1 << 20),
    );
    f.sim.set_faults(Faults {
        cut_artifact_content_after: Some(100_000),
        ..Faults::default()
    });
    let dir = f.dir("out");

    let out = f
        .run(&["artifacts", &f.session, "--download", dir.to_str().unwrap()])
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could not save /workspace/outputs/big.bin"),
        "{}",
        stderr(&out)
    );
    assert!(
        files(&dir).is_empty(),
        "no final file, no temporary: {:?}",
        files(&dir)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_archive_of_the_latest_turn_or_a_chosen_one_is_saved() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/first.txt",
        b"one".to_vec(),
    );
    let chart = binary(70_000);
    f.sim.add_artifact(
        &f.session,
        T2,
        "/workspace/outputs/charts/a.png",
        chart.clone(),
    );
    let dir = f.dir("arch");
    let file = dir.join("latest.tar");

    let out = f
        .run(&["artifacts", &f.session, "--archive", file.to_str().unwrap()])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(T2), "{}", stdout(&out));
    let extracted = f.dir("x-latest");
    let tar = std::process::Command::new("tar")
        .arg("-xf")
        .arg(&file)
        .arg("-C")
        .arg(&extracted)
        .status()
        .unwrap();
    assert!(tar.success());
    assert_eq!(files(&extracted), ["workspace/outputs/charts/a.png"]);
    assert!(std::fs::read(extracted.join("workspace/outputs/charts/a.png")).unwrap() == chart);

    let chosen = dir.join("t1.tar");
    let out = f
        .run(&[
            "artifacts",
            &f.session,
            "--turn",
            T1,
            "--archive",
            chosen.to_str().unwrap(),
        ])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = std::process::Command::new("tar")
        .arg("-tf")
        .arg(&chosen)
        .output()
        .unwrap();
    assert_eq!(stdout(&listing), "workspace/outputs/first.txt\n");

    // The same file again is refused without --force.
    let out = f
        .run(&[
            "artifacts",
            &f.session,
            "--turn",
            T1,
            "--archive",
            chosen.to_str().unwrap(),
        ])
        .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("exists (use --force"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_terminal_on_stderr_gets_a_progress_line_with_bytes_and_rate() {
    let sim = crate::support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("outputs"));
    sim.sim.add_artifact(
        &session,
        T1,
        "/workspace/outputs/big.bin",
        binary(2_000_000),
    );
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    let mut pty = crate::support::app::spawn(
        &["artifacts", &session, "--download", dir.to_str().unwrap()],
        &home,
        &sim.sim,
    );
    let status = pty.wait_exit(TIMEOUT);
    let screen = pty.screen_text();
    assert!(status.success(), "{screen}");
    let progress = screen
        .lines()
        .find(|l| l.starts_with("/workspace/outputs/big.bin  "))
        .unwrap_or_else(|| panic!("no progress line:\n{screen}"));
    assert!(progress.contains("2.0 MB / 2.0 MB  "), "{progress}");
    assert!(progress.trim_end().ends_with("B/s"), "{progress}");
    assert_eq!(
        std::fs::read(dir.join("big.bin")).unwrap(),
        binary(2_000_000)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_download_leaves_no_temporary_file() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T1,
        "/workspace/outputs/big.bin",
        binary(1 << 20),
    );
    f.sim.set_faults(Faults {
        cut_artifact_content_after: Some(100_000),
        stall_artifact_content: true,
        ..Faults::default()
    });
    let dir = f.dir("out");
    let url = f.sim.url().to_string();
    let args = [
        "--api",
        url.as_str(),
        "artifacts",
        &f.session,
        "--download",
        dir.to_str().unwrap(),
    ];
    let mut child = f
        .home
        .tokio_command(&args)
        .env("GOBARE_TOKEN", f.sim.token())
        .spawn()
        .unwrap();
    // The temporary file exists: the download is under way (and stalls after 100 kB).
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let part = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".part"));
        if part.is_some() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the download never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = crate::support::process::interrupt(&mut child, TIMEOUT).await;
    assert_eq!(status.code(), Some(1));
    assert!(files(&dir).is_empty(), "{:?}", files(&dir));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_makes_a_directory_that_does_not_exist_and_refuses_a_file_in_the_way() {
    let f = Fixture::new().await;
    f.sim.add_artifact(
        &f.session,
        T2,
        "/workspace/outputs/report.md",
        b"final".to_vec(),
    );
    let parent = f.dir("fresh");
    let dir = parent.join("out/nested");
    assert!(!parent.join("out").exists());
    let out = f
        .run(&["artifacts", &f.session, "--download", dir.to_str().unwrap()])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("report.md")).unwrap(), b"final");

    let in_the_way = parent.join("a-file");
    std::fs::write(&in_the_way, b"keep me").unwrap();
    let out = f
        .run(&[
            "artifacts",
            &f.session,
            "--download",
            in_the_way.to_str().unwrap(),
        ])
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("exists and is not a directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&in_the_way).unwrap(), b"keep me");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_waits_out_the_rate_limit_and_saves_every_artifact() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let session = sim.create_session(Some("many outputs"));
    let mut bodies = Vec::new();
    for i in 0..50 {
        let body = format!("artifact {i}\n").into_bytes();
        sim.add_artifact(
            &session,
            "turn_0000000000000001",
            &format!("/workspace/outputs/part-{i:02}.txt"),
            body.clone(),
        );
        bodies.push(body);
    }
    // The command's first listing is refused as an empty bucket refuses it.
    const RETRY_AFTER_SECS: u64 = 2;
    let listing = format!("GET /v1/sessions/{session}/artifacts");
    sim.refuse_next(&listing, 1, RETRY_AFTER_SECS);
    let home = Home::new();
    let dir = home.path("saved");
    let out = crate::support::cli::run_against_within(
        &sim,
        &home,
        &["artifacts", &session, "--download", dir.to_str().unwrap()],
        Duration::from_secs(120),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    for (i, body) in bodies.iter().enumerate() {
        let saved = std::fs::read(dir.join(format!("part-{i:02}.txt"))).unwrap();
        assert_eq!(&saved, body, "part-{i:02}");
    }
    // On the record: the refused listing, then nothing of the session's artifacts until
    // its Retry-After had passed, then the listing again and every download.
    let seen = sim.refuse_next_record();
    assert!(seen[0].refused, "{seen:?}");
    assert!(seen[0].request.starts_with(&listing), "{seen:?}");
    let again = &seen[1];
    assert!(
        !again.refused && !again.request.contains("/content"),
        "{seen:?}"
    );
    assert!(
        again.at.duration_since(seen[0].at) >= Duration::from_secs(RETRY_AFTER_SECS),
        "read again {:?} after the refusal",
        again.at.duration_since(seen[0].at)
    );
    let downloads = seen
        .iter()
        .filter(|m| m.request.contains("/content"))
        .count();
    assert_eq!(downloads, 50, "{seen:?}");
}
