//! Running the built binary with an isolated environment.

use std::path::{Path, PathBuf};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_gobare-tui");

/// A scratch directory holding XDG config/state homes, removed on drop.
pub(crate) struct Home(pub(crate) PathBuf);

impl Home {
    pub(crate) fn new() -> Home {
        let dir = std::env::temp_dir().join(format!("gobare-cli-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Home(dir)
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub(crate) fn write_config(&self, text: &str) {
        let dir = self.0.join("config/gobare-tui");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.toml"), text).unwrap();
    }

    /// Applies the isolated environment to a command (std or tokio).
    pub(crate) fn std_command(&self, args: &[&str]) -> std::process::Command {
        let mut c = std::process::Command::new(BIN);
        c.args(args);
        for (k, v) in self.vars() {
            c.env(k, v);
        }
        for k in REMOVED {
            c.env_remove(k);
        }
        c
    }

    pub(crate) fn tokio_command(&self, args: &[&str]) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(BIN);
        c.args(args).kill_on_drop(true);
        for (k, v) in self.vars() {
            c.env(k, v);
        }
        for k in REMOVED {
            c.env_remove(k);
        }
        c
    }

    fn vars(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("XDG_CONFIG_HOME", self.0.join("config")),
            ("XDG_STATE_HOME", self.0.join("state")),
            ("HOME", self.0.clone()),
            // The tests' simulator frees a closed stream's slot at once.
            ("GOBARE_STREAM_SLOT_RELEASE_MS", PathBuf::from("0")),
        ]
    }

    pub(crate) fn state_dir(&self) -> PathBuf {
        self.0.join("state")
    }

    pub(crate) fn log_dir(&self) -> PathBuf {
        self.0.join("state/gobare-tui/logs")
    }
}

const REMOVED: [&str; 4] = [
    "GOBARE_API",
    "GOBARE_TOKEN",
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
];

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Everything the log files under `dir` contain.
pub(crate) fn read_logs(dir: &Path) -> String {
    let mut all = String::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    all
}

/// The binary with `args` against `sim` (its URL and token), run to completion.
pub(crate) async fn run_against(
    sim: &gobare_sim::Simulator,
    home: &Home,
    args: &[&str],
) -> std::process::Output {
    run_against_within(sim, home, args, std::time::Duration::from_secs(40)).await
}

/// [`run_against`] for a command that may take up to `limit` (one that waits for a
/// request budget to refill, say).
pub(crate) async fn run_against_within(
    sim: &gobare_sim::Simulator,
    home: &Home,
    args: &[&str],
    limit: std::time::Duration,
) -> std::process::Output {
    let url = sim.url().to_string();
    let mut all = vec!["--api", url.as_str()];
    all.extend_from_slice(args);
    tokio::time::timeout(
        limit,
        home.tokio_command(&all)
            .env("GOBARE_TOKEN", sim.token())
            .output(),
    )
    .await
    .expect("the command finishes")
    .unwrap()
}

/// A command's stdout as text.
pub(crate) fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A command's stderr as text.
pub(crate) fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
