#![cfg(unix)]
//! Artifacts and workspace files in the app, the real binary in a pty against the
//! simulator: `a` lists the artifacts, Enter shows a text one highlighted (colour cells in
//! the terminal, SGR colours in the bytes) and a binary one by size and type, `s` saves one
//! byte for byte as the content endpoint serves it, an existing file is replaced only after
//! `y`, `t` saves the turn's tar; `f` browses the snapshot tree, `r` takes a snapshot, `/`
//! finds by name, a withheld file says why, Enter shows a file highlighted.

use crate::support;
use crate::support::app::{bottom, launch_on, quit, until};
use crate::support::live::wait_live;
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
const TURN: &str = "turn_00000000000000a1";
const SCRIPT: &str = "def greet(name):\n    # say hello\n    return \"hello \" + name\n";

/// `attach SESSION` started in `home` (so `./gobare-artifacts/` lands there), in the panes.
fn attach_in_home(sim: &support::sim::Sim, session: &str, home: &tempfile::TempDir) -> Pty {
    attach_with_downloads(sim, session, home, None)
}

/// [`attach_in_home`] with `$XDG_DOWNLOAD_DIR` set to `downloads`.
fn attach_with_downloads(
    sim: &support::sim::Sim,
    session: &str,
    home: &tempfile::TempDir,
    downloads: Option<&Path>,
) -> Pty {
    let app = launch_on(&sim.sim, &["attach", session], home).cwd(home.path());
    let mut pty = match downloads {
        Some(dir) => app.env("XDG_DOWNLOAD_DIR", dir),
        None => app,
    }
    .spawn();
    wait_live(&pty, TIMEOUT);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    pty
}

/// The dark theme's accent and green in a 256-colour terminal (the tests' TERM).
const ACCENT_256: vt100::Color = vt100::Color::Idx(81);
const GREEN_256: vt100::Color = vt100::Color::Idx(114);

/// The foreground colour of the first cell of `text` on the screen.
fn colour_of(pty: &Pty, text: &str) -> Option<vt100::Color> {
    pty.with_screen(|s| {
        let rows = s.contents();
        for (row, line) in rows.lines().enumerate() {
            if let Some(byte) = line.find(text) {
                let col = line[..byte].chars().count();
                return s.cell(row as u16, col as u16).map(|c| c.fgcolor());
            }
        }
        None
    })
}

fn has_sgr_colour(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    ["\x1b[38;5;", "\x1b[36m", "\x1b[32m", "\x1b[35m"]
        .iter()
        .any(|sgr| text.contains(sgr))
}

#[test]
fn artifacts_list_open_highlighted_save_and_refuse_an_overwrite() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("outputs"));
    sim.sim.add_artifact(
        &session,
        TURN,
        "/workspace/outputs/greet.py",
        SCRIPT.as_bytes().to_vec(),
    );
    let blob: Vec<u8> = (0..300_000).map(|i| (i * 7 % 256) as u8).collect();
    let binary = sim
        .sim
        .add_artifact(&session, TURN, "/workspace/outputs/data/blob.bin", blob);
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach_in_home(&sim, &session, &home);

    pty.send_keys("a");
    pty.wait_for(
        "the list",
        |s| {
            let c = s.contents();
            c.contains("Artifacts · 2") && c.contains("greet.py") && c.contains("data/blob.bin")
        },
        TIMEOUT,
    );
    let screen = pty.screen_text();
    assert!(
        screen.contains("300.0 kB") && screen.contains(TURN),
        "{screen}"
    );

    // The text one, highlighted: `def` is a keyword (the accent), the string green.
    let before = pty.raw_bytes().len();
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("say hello", TIMEOUT);
    pty.wait_for_text("Python", TIMEOUT);
    assert_eq!(colour_of(&pty, "def greet"), Some(ACCENT_256));
    assert_eq!(colour_of(&pty, "\"hello \""), Some(GREEN_256));
    assert!(has_sgr_colour(&pty.raw_bytes()[before..]));

    // Back to the list; the binary one shows its size and type only.
    pty.send_keys(keys::ESC);
    pty.wait_for_text("Artifacts · 2", TIMEOUT);
    pty.send_keys(keys::DOWN);
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("binary file: application/octet-stream, 300.0 kB", TIMEOUT);
    pty.send_keys(keys::ESC);
    pty.wait_for_text("Artifacts · 2", TIMEOUT);

    // `s` saves the selected one, byte for byte as the content endpoint serves it.
    // Without a download directory: under the current one, named in full.
    let prefix: String = session.chars().take(16).collect();
    let cwd = home.path().canonicalize().unwrap();
    let dir: PathBuf = cwd.join("gobare-artifacts").join(&prefix);
    let saved = dir.join("data/blob.bin");
    pty.send_keys("s");
    pty.wait_for_text(&format!("saved {}", saved.display()), TIMEOUT);
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        sim.artifact_content(&session, &binary)
    );

    // Again: it asks; `n` keeps the file as it is now, without a download.
    std::fs::write(&saved, "edited here").unwrap();
    let downloads = || {
        sim.sim
            .requests()
            .iter()
            .filter(|r| r.ends_with(&format!("/artifacts/{binary}/content")))
            .count()
    };
    let before = downloads();
    pty.send_keys("s");
    pty.wait_for_text("blob.bin exists: overwrite it?", TIMEOUT);
    pty.send_keys("n");
    pty.wait_for_text("nothing saved: the existing files are kept", TIMEOUT);
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "edited here");
    assert_eq!(downloads(), before);
    // `y` replaces it.
    pty.send_keys("s");
    pty.wait_for_text("blob.bin exists: overwrite it?", TIMEOUT);
    pty.send_keys("y");
    let want = sim.artifact_content(&session, &binary);
    until(
        "the file replaced",
        TIMEOUT,
        || (std::fs::read(&saved).ok()? == want).then_some(()),
        || pty.screen_text(),
    );

    // `t`: the turn's archive, a tar holding both.
    pty.send_keys(keys::UP);
    pty.send_keys("t");
    let tar = dir.join(format!("{TURN}.tar"));
    pty.wait_for_text(&format!("{TURN}.tar ("), TIMEOUT);
    let listed = std::process::Command::new("tar")
        .arg("-tf")
        .arg(&tar)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("greet.py") && listed.contains("blob.bin"),
        "{listed}"
    );
    assert!(
        !std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".part")),
        "no temporary file left"
    );

    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the panes again",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn files_browse_the_snapshot_find_by_name_and_open_highlighted() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("files"));
    sim.sim
        .write_workspace_file(&session, "src/greet.py", SCRIPT.as_bytes());
    sim.sim
        .write_workspace_file(&session, "README.md", b"# Read me\n");
    sim.sim
        .write_workspace_file(&session, "config/.env", b"SECRET=1\n");
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach_in_home(&sim, &session, &home);

    pty.send_keys("f");
    pty.wait_for_text("no snapshot yet: r takes one", TIMEOUT);
    pty.send_keys("r");
    pty.wait_for(
        "the tree",
        |s| {
            let c = s.contents();
            c.contains("snapshot from just now") && c.contains("▸ src") && c.contains("README.md")
        },
        TIMEOUT,
    );
    let requests = sim.sim.requests();
    assert!(
        requests
            .iter()
            .any(|r| r == &format!("POST /v1/sessions/{session}/files/refresh")),
        "{requests:?}"
    );

    // A withheld file says why and is never asked for.
    pty.send_keys("/");
    pty.send_keys(".env");
    pty.wait_for_text("config/.env", TIMEOUT);
    pty.send_keys(keys::ENTER);
    pty.wait_for_text(".env: not readable: the server withholds", TIMEOUT);

    // Find by name, then open it highlighted.
    for _ in 0..4 {
        pty.send_keys("\x7f");
    }
    pty.send_keys("greet");
    pty.wait_for_text("src/greet.py", TIMEOUT);
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("say hello", TIMEOUT);
    assert_eq!(colour_of(&pty, "def greet"), Some(ACCENT_256));
    assert!(
        !sim.sim
            .requests()
            .iter()
            .any(|r| r.contains("files/content") && r.contains(".env")),
        "the withheld file was never read"
    );

    pty.send_keys(keys::ESC);
    pty.wait_for_text("find: greet", TIMEOUT);
    pty.send_keys(keys::ESC);
    pty.wait_for_text("▸ config", TIMEOUT);
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the panes again",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// The files `S` is tried on: a text, a binary and one of a few MB (many chunks).
fn three_artifacts(sim: &support::sim::Sim, session: &str) -> Vec<(String, &'static str)> {
    let big: Vec<u8> = (0..3_000_000).map(|i| (i % 251) as u8).collect();
    let png: Vec<u8> = [0x89, b'P', b'N', b'G', 0, 1, 2, 3].repeat(100);
    [
        ("report.md", b"# Report\n\nall done\n".to_vec()),
        ("charts/q3.png", png),
        ("data/big.bin", big),
    ]
    .into_iter()
    .map(|(rel, body)| {
        let path = format!("/workspace/outputs/{rel}");
        (sim.sim.add_artifact(session, TURN, &path, body), rel)
    })
    .collect()
}

#[test]
fn save_all_lands_every_artifact_under_the_download_directory_and_asks_before_replacing() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("save all"));
    let artifacts = three_artifacts(&sim, &session);
    let home = tempfile::tempdir().unwrap();
    let downloads = home.path().join("Downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let mut pty = attach_with_downloads(&sim, &session, &home, Some(&downloads));
    let prefix: String = session.chars().take(16).collect();
    let dir = downloads.join("gobare-artifacts").join(&prefix);

    pty.send_keys("a");
    pty.wait_for_text("Artifacts · 3", TIMEOUT);
    pty.wait_for_text(&format!("saves to {}/", dir.display()), TIMEOUT);
    pty.send_keys("S");
    pty.wait_for_text(&format!("saved 3 artifacts to {}/", dir.display()), TIMEOUT);
    let content = |id: &str| sim.artifact_content(&session, id);
    for (id, rel) in &artifacts {
        assert_eq!(std::fs::read(dir.join(rel)).unwrap(), content(id), "{rel}");
    }

    // Again, with one file edited here: nothing is downloaded before the question, and `n`
    // keeps every file as it is.
    let report = dir.join("report.md");
    std::fs::write(&report, "edited here").unwrap();
    let downloads_made = || {
        sim.sim
            .requests()
            .iter()
            .filter(|r| r.contains("/artifacts/") && r.ends_with("/content"))
            .count()
    };
    let before = downloads_made();
    pty.send_keys("S");
    pty.wait_for_text(
        &format!("3 files exist in {}/: overwrite them?", dir.display()),
        TIMEOUT,
    );
    // Only y or n answers: another S changes nothing.
    pty.send_keys("S");
    pty.send_keys("n");
    pty.wait_for_text("nothing saved: the existing files are kept", TIMEOUT);
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "edited here");
    assert_eq!(downloads_made(), before);

    // `y` replaces them all with the server's bytes.
    pty.send_keys("S");
    pty.wait_for_text("overwrite them?", TIMEOUT);
    pty.send_keys("y");
    pty.wait_for_text(&format!("saved 3 artifacts to {}/", dir.display()), TIMEOUT);
    // Counted before the comparison's own reads of the content endpoint.
    assert_eq!(downloads_made(), before + 3);
    for (id, rel) in &artifacts {
        assert_eq!(std::fs::read(dir.join(rel)).unwrap(), content(id), "{rel}");
    }
    let leftovers: Vec<_> = walk(&dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    pty.send_keys(keys::ESC);
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn the_config_file_chooses_where_saves_go() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("chosen dir"));
    let artifacts = three_artifacts(&sim, &session);
    let home = tempfile::tempdir().unwrap();
    let chosen = home.path().join("chosen");
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!("[downloads]\ndir = \"{}\"\n", chosen.display()),
    )
    .unwrap();
    let downloads = home.path().join("Downloads");
    let mut pty = attach_with_downloads(&sim, &session, &home, Some(&downloads));
    let prefix: String = session.chars().take(16).collect();
    let dir = chosen.join(&prefix);

    pty.send_keys("a");
    // The list read, not only its frame drawn: `s` before the rows is nothing to save.
    pty.wait_for_text("Artifacts · 3", TIMEOUT);
    pty.wait_for_text(&format!("saves to {}/", dir.display()), TIMEOUT);
    pty.send_keys("s");
    let (id, rel) = &artifacts[0];
    let saved = dir.join(rel);
    pty.wait_for_text(&format!("saved {}", saved.display()), TIMEOUT);
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        sim.artifact_content(&session, id)
    );
    assert!(!downloads.exists(), "nothing under the download directory");
    pty.send_keys(keys::ESC);
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
