//! The workspace's binary started in a pseudo-terminal with an isolated home: its state,
//! config, data and cache under the test's directory, and nothing inherited that would
//! change what it does (a token, an API, the colour switch, tmux passthrough, where
//! downloads go). The binary's path is the caller's: cargo gives `CARGO_BIN_EXE_…` only to
//! a package's own integration tests.

use std::ffi::OsStr;
use std::path::Path;

use super::{CommandBuilder, Pty};

/// Inherited variables that would change what the binary does.
const NOT_INHERITED: [&str; 5] = [
    "GOBARE_TOKEN",
    "GOBARE_API",
    "NO_COLOR",
    "TMUX",
    "XDG_DOWNLOAD_DIR",
];

/// A program to start in a terminal: its command line and environment, the terminal's
/// size, and how the terminal answers the background-colour question.
pub struct Launch {
    cmd: CommandBuilder,
    cols: u16,
    rows: u16,
    background: Option<&'static str>,
}

impl Launch {
    /// `program` with `args` and its home under `home`, without a server or a token, in an
    /// 80×24 terminal that does not answer the background-colour question.
    pub fn new(program: impl AsRef<OsStr>, args: &[&str], home: &Path) -> Launch {
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        Launch::isolated(cmd, home)
    }

    /// `sh -c script` with `args` as `$0`, `$1`, …, in the same isolated home as
    /// [`Launch::new`] (for the binary run from a shell that stays in between).
    pub fn shell(script: &str, args: &[&str], home: &Path) -> Launch {
        let mut cmd = CommandBuilder::new("sh");
        cmd.args(["-c", script]);
        cmd.args(args);
        Launch::isolated(cmd, home)
    }

    fn isolated(mut cmd: CommandBuilder, home: &Path) -> Launch {
        cmd.env("TERM", "xterm-256color");
        cmd.env("XDG_STATE_HOME", home.join("state"));
        cmd.env("XDG_CONFIG_HOME", home.join("config"));
        // The demo keeps its sessions under the data directory, its throwaway stores under
        // the cache directory.
        cmd.env("XDG_DATA_HOME", home.join("data"));
        cmd.env("XDG_CACHE_HOME", home.join("cache"));
        cmd.env("RUST_BACKTRACE", "0");
        // The tests' simulator frees a closed stream's slot at once.
        cmd.env("GOBARE_STREAM_SLOT_RELEASE_MS", "0");
        for inherited in NOT_INHERITED {
            cmd.env_remove(inherited);
        }
        Launch {
            cmd,
            cols: 80,
            rows: 24,
            background: None,
        }
    }

    /// Points the program at the server at `url` with `token`.
    pub fn api(self, url: &str, token: &str) -> Launch {
        self.env("GOBARE_API", url).env("GOBARE_TOKEN", token)
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Launch {
        self.cmd.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Launch {
        self.cmd.env_remove(key);
        self
    }

    /// Where the program starts.
    pub fn cwd(mut self, dir: impl AsRef<OsStr>) -> Launch {
        self.cmd.cwd(dir);
        self
    }

    /// A terminal of `cols` × `rows`.
    pub fn size(mut self, cols: u16, rows: u16) -> Launch {
        (self.cols, self.rows) = (cols, rows);
        self
    }

    /// A terminal that answers the background-colour question with `rgb`
    /// ([`Pty::spawn_with_background`]); `None` leaves it unanswered.
    pub fn background(mut self, rgb: Option<&'static str>) -> Launch {
        self.background = rgb;
        self
    }

    /// Starts the program.
    pub fn spawn(self) -> Pty {
        Pty::spawn_with_background(self.cmd, self.cols, self.rows, self.background)
    }
}
