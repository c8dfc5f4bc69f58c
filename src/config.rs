//! Flags + environment + config file → [`Config`]; XDG paths for config, state and logs.
//!
//! Precedence: command-line flag > environment variable > config file > default. The
//! token comes only from `--token-file` or `GOBARE_TOKEN`, never from a flag value or the
//! config file.

mod screen_reader;

use crate::cli::GlobalArgs;
use gobare_api::auth::Token;
use gobare_api::client::{
    ApiClient, ClientOptions, DEFAULT_API, check_transport, normalize_api_base,
};
use gobare_api::error::ApiError;
use gobare_api::stream::{StreamOptions, StreamTarget};
use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

const APP_DIR: &str = "gobare-tui";
/// The most read from a token file: tokens are tens of bytes, and the file may be
/// `/dev/zero` or a FIFO that never ends.
const MAX_TOKEN_FILE_BYTES: usize = 4 * 1024;
/// How long a token file may take to deliver its first line: a FIFO with no writer would
/// otherwise block startup forever.
const TOKEN_FILE_TIMEOUT: Duration = Duration::from_secs(3);

/// Everything a command needs to know about where and how to connect.
#[derive(Debug, Clone)]
pub struct Config {
    /// API base as configured (the client normalizes it and adds `/v1`).
    pub(crate) api: Url,
    pub token: Option<Token>,
    pub(crate) allow_insecure_http: bool,
    pub(crate) verbose: bool,
    /// `$XDG_STATE_HOME/gobare-tui` (or the platform's equivalent).
    pub(crate) state_dir: PathBuf,
    /// `<state_dir>/logs`.
    pub(crate) log_dir: PathBuf,
    /// The config file's contents, including sections this module does not read (other
    /// modules take their own sections from [`FileConfig::sections`]).
    pub(crate) file: FileConfig,
    /// What [`Config::load`] warned about on stderr, for the app to show again on its
    /// screen (which covers stderr).
    pub(crate) warnings: Vec<String>,
    /// The screen-reader mode, and what turned it on; `None`: the full screen.
    pub(crate) screen_reader: Option<String>,
    /// The built-in demo's own simulator ([`Config::for_local_demo`]): every session opened
    /// under it is marked so (its quit question says the demo ends with it).
    pub(crate) local_demo: bool,
    /// The demo keeps its sessions (a data directory): quitting does not end them.
    pub(crate) demo_kept: bool,
}

/// `config.toml`. Unknown keys and sections are kept, not refused: other parts of the
/// program (and newer versions) add their own.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct FileConfig {
    pub(crate) api: Option<String>,
    #[serde(flatten)]
    pub(crate) sections: toml::Table,
}

/// The environment variables configuration reads, captured once (tests build their own).
#[derive(Clone, Default)]
pub struct EnvVars {
    pub gobare_token: Option<String>,
    pub xdg_config_home: Option<PathBuf>,
    pub xdg_state_home: Option<PathBuf>,
    /// `GOBARE_TUI_SCREEN_READER`.
    pub screen_reader: Option<String>,
}

/// Written by hand: `GOBARE_TOKEN` is a secret and never appears in `Debug` output.
impl std::fmt::Debug for EnvVars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvVars")
            .field(
                "gobare_token",
                &self.gobare_token.as_ref().map(|_| "<redacted>"),
            )
            .field("xdg_config_home", &self.xdg_config_home)
            .field("xdg_state_home", &self.xdg_state_home)
            .field("screen_reader", &self.screen_reader)
            .finish()
    }
}

impl EnvVars {
    pub(crate) fn from_process() -> EnvVars {
        let path = |name: &str| std::env::var_os(name).map(PathBuf::from);
        EnvVars {
            gobare_token: std::env::var("GOBARE_TOKEN").ok(),
            xdg_config_home: path("XDG_CONFIG_HOME"),
            xdg_state_home: path("XDG_STATE_HOME"),
            screen_reader: std::env::var(screen_reader::ENV).ok(),
        }
    }
}

/// How long the service holds a closed stream's slot: `GOBARE_STREAM_SLOT_RELEASE_MS` for a
/// server known to free it at once (the tests' simulator), else the reference's ~5 s.
fn stream_slot_release() -> std::time::Duration {
    std::env::var(STREAM_SLOT_RELEASE_ENV)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(gobare_api::schedule::SLOT_RELEASE, |ms| {
            std::time::Duration::from_millis(ms.min(60_000))
        })
}

/// See `stream_slot_release`.
pub const STREAM_SLOT_RELEASE_ENV: &str = "GOBARE_STREAM_SLOT_RELEASE_MS";

/// How long a stream may say nothing before it is taken for dead: the reference pings
/// every 15 s and calls ~45 s of silence dead (§7.8); `GOBARE_STREAM_IDLE_TIMEOUT_MS`
/// (1 s to 10 min) for a server that pings at another pace.
fn stream_idle_timeout() -> std::time::Duration {
    std::env::var(STREAM_IDLE_TIMEOUT_ENV)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(StreamOptions::default().idle_timeout, |ms| {
            std::time::Duration::from_millis(ms.clamp(1_000, 600_000))
        })
}

/// See `stream_idle_timeout`.
pub const STREAM_IDLE_TIMEOUT_ENV: &str = "GOBARE_STREAM_IDLE_TIMEOUT_MS";

/// Why configuration could not be completed (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the token file {path}: {source}")]
    TokenFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the token file {path} is {problem}")]
    TokenFileContent {
        path: PathBuf,
        problem: &'static str,
    },
    #[error(
        "the token file {path} gave no token within {}s (a FIFO with no writer?)",
        timeout.as_secs_f64()
    )]
    TokenFileTimeout { path: PathBuf, timeout: Duration },
    /// Never quotes the token: only where it came from.
    #[error(
        "the token from {source_name} cannot be sent in an HTTP header (it contains a space, \
         a control character or a non-ASCII character)"
    )]
    InvalidToken { source_name: String },
    #[error("this command needs an API token: set GOBARE_TOKEN or --token-file")]
    NoToken,
    #[error("cannot read the config file {path}: {source}")]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the config file {path} is not valid TOML{at}: {message}")]
    ParseFile {
        path: PathBuf,
        /// " at line L, column C", when the parser knows where.
        at: String,
        message: String,
    },
    #[error("`api` in {path} is not a URL: {reason}")]
    FileApi { path: PathBuf, reason: String },
    #[error(
        "cannot find a home directory for config and logs; set XDG_CONFIG_HOME and XDG_STATE_HOME"
    )]
    NoDirectories,
}

impl Config {
    /// Reads the process environment and the config file. Warnings (a token file others
    /// can read) go to stderr.
    pub(crate) fn load(args: &GlobalArgs) -> Result<Config, ConfigError> {
        let mut warnings = Vec::new();
        let mut config = Config::resolve(args, &EnvVars::from_process(), &mut warnings)?;
        for w in &warnings {
            eprintln!("gobare-tui: warning: {w}");
        }
        config.warnings = warnings;
        Ok(config)
    }

    /// `Config::load` with the environment given, for tests.
    pub fn resolve(
        args: &GlobalArgs,
        env: &EnvVars,
        warnings: &mut Vec<String>,
    ) -> Result<Config, ConfigError> {
        let (config_dir, state_dir) = directories_for(env)?;
        let file_path = config_dir.join("config.toml");
        let file = read_file_config(&file_path)?;

        let api = match (&args.api, &file.api) {
            (Some(flag_or_env), _) => flag_or_env.clone(),
            (None, Some(text)) => Url::parse(text).map_err(|e| ConfigError::FileApi {
                path: file_path.clone(),
                reason: e.to_string(),
            })?,
            (None, None) => Url::parse(DEFAULT_API).expect("static URL"),
        };

        let token = match &args.token_file {
            Some(path) => Some(read_token_file(path, TOKEN_FILE_TIMEOUT, warnings)?),
            None => match env.gobare_token.as_deref() {
                Some(text) => token_from_text(text, || "GOBARE_TOKEN".to_string())?,
                None => None,
            },
        };

        let screen_reader = screen_reader::decide(
            args.screen_reader,
            env.screen_reader.as_deref(),
            file.sections
                .get("accessibility")
                .and_then(|a| a.get("screen_reader")),
            warnings,
        );
        Ok(Config {
            api,
            token,
            allow_insecure_http: args.allow_insecure_http,
            verbose: args.verbose,
            screen_reader,
            log_dir: state_dir.join("logs"),
            state_dir,
            file,
            warnings: Vec::new(),
            local_demo: false,
            demo_kept: false,
        })
    }

    /// The token, for commands that cannot work without one (a missing token is a
    /// configuration error before any request, not a 401 from the server).
    pub(crate) fn require_token(&self) -> Result<&Token, ConfigError> {
        self.token.as_ref().ok_or(ConfigError::NoToken)
    }

    /// This configuration pointed at the built-in demo's simulator: its loopback URL and
    /// token, with the demo's state under `state_dir` (thrown away with it); `kept` when
    /// the simulator keeps the demo's sessions. The config file's settings (theme, keys,
    /// notifications) still apply.
    pub(crate) fn for_local_demo(
        &self,
        api: Url,
        token: Option<Token>,
        state_dir: PathBuf,
        kept: bool,
    ) -> Config {
        Config {
            api,
            token,
            allow_insecure_http: true,
            verbose: self.verbose,
            screen_reader: self.screen_reader.clone(),
            log_dir: self.log_dir.clone(),
            state_dir,
            file: self.file.clone(),
            warnings: self.warnings.clone(),
            local_demo: true,
            demo_kept: kept,
        }
    }

    /// Options for [`ApiClient::new`] from this configuration.
    pub fn client_options(&self) -> ClientOptions {
        let mut options = ClientOptions::new(self.api.clone(), self.token.clone());
        options.allow_insecure_http = self.allow_insecure_http;
        options
    }

    /// An API client for this configuration.
    pub fn client(&self) -> Result<ApiClient, ApiError> {
        ApiClient::new(self.client_options())
    }

    /// Options for [`gobare_api::stream::spawn`], under the same URL and transport rules
    /// as the client.
    pub fn stream_options(
        &self,
        target: StreamTarget,
        from: Option<u64>,
    ) -> Result<StreamOptions, ApiError> {
        let api = normalize_api_base(&self.api)?;
        check_transport(&api, self.token.is_some(), self.allow_insecure_http)?;
        Ok(StreamOptions {
            api,
            token: self.token.clone(),
            target,
            from,
            slot_release: stream_slot_release(),
            idle_timeout: stream_idle_timeout(),
            ..StreamOptions::default()
        })
    }
}

/// `(config_dir, state_dir)`. An absolute `XDG_*_HOME` wins on every platform (the XDG
/// spec ignores relative ones); otherwise the platform's convention.
fn directories_for(env: &EnvVars) -> Result<(PathBuf, PathBuf), ConfigError> {
    let absolute = |p: &Option<PathBuf>| p.clone().filter(|p| p.is_absolute());
    let project = || directories::ProjectDirs::from("dev", "gobare", APP_DIR);
    let config_dir = match absolute(&env.xdg_config_home) {
        Some(base) => base.join(APP_DIR),
        None => project()
            .ok_or(ConfigError::NoDirectories)?
            .config_dir()
            .to_path_buf(),
    };
    let state_dir = match absolute(&env.xdg_state_home) {
        Some(base) => base.join(APP_DIR),
        None => {
            let p = project().ok_or(ConfigError::NoDirectories)?;
            // macOS and Windows have no state directory; local data is the equivalent.
            p.state_dir().unwrap_or(p.data_local_dir()).to_path_buf()
        }
    };
    Ok((config_dir, state_dir))
}

fn read_file_config(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileConfig::default()),
        Err(source) => {
            return Err(ConfigError::ReadFile {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str(&text).map_err(|e| ConfigError::ParseFile {
        path: path.to_path_buf(),
        at: e.span().map_or_else(String::new, |span| {
            let (line, column) = line_and_column(&text, span.start);
            format!(" at line {line}, column {column}")
        }),
        message: e.message().trim().to_string(),
    })
}

/// The 1-based line and column (in characters) of byte `offset` of `text`, as editors count.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..text.floor_char_boundary(offset.min(text.len()))];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// The first non-empty line of the file. Reads at most [`MAX_TOKEN_FILE_BYTES`] and waits
/// at most `timeout`, whatever the file is (`/dev/zero`, a FIFO). Errors never quote the
/// file's contents.
fn read_token_file(
    path: &Path,
    timeout: Duration,
    warnings: &mut Vec<String>,
) -> Result<Token, ConfigError> {
    let io_err = |source| ConfigError::TokenFile {
        path: path.to_path_buf(),
        source,
    };
    // `metadata` never blocks, even on a FIFO; opening one with no writer does.
    let meta = std::fs::metadata(path).map_err(io_err)?;
    if let Some(w) = permission_warning(path, &meta) {
        warnings.push(w);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = path.to_path_buf();
    // A blocked open or read cannot be interrupted portably: it runs on its own thread and
    // is abandoned on timeout (the process is about to exit with a configuration error).
    std::thread::Builder::new()
        .name("token-file".into())
        .spawn(move || {
            let _ = tx.send(read_first_line(&owned));
        })
        .map_err(io_err)?;
    let bytes = match rx.recv_timeout(timeout) {
        Ok(result) => result.map_err(io_err)?,
        Err(_) => {
            return Err(ConfigError::TokenFileTimeout {
                path: path.to_path_buf(),
                timeout,
            });
        }
    };
    let content_err = |problem| ConfigError::TokenFileContent {
        path: path.to_path_buf(),
        problem,
    };
    let mut bytes = bytes;
    if bytes.len() > MAX_TOKEN_FILE_BYTES {
        // Only complete lines count; without one this is no token file.
        match bytes.iter().rposition(|b| *b == b'\n') {
            Some(end) => bytes.truncate(end),
            None => return Err(content_err("too large to be a token")),
        }
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| content_err("not UTF-8 text"))?;
    let line = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .ok_or_else(|| content_err("empty"))?;
    token_from_text(line, || format!("the token file {}", path.display()))?
        .ok_or_else(|| content_err("empty"))
}

/// Reads until the first complete non-empty line, end of file, or one byte past the limit.
fn read_first_line(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 512];
    while bytes.len() <= MAX_TOKEN_FILE_BYTES {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&chunk[..n]);
        let has_line = bytes
            .split(|b| *b == b'\n')
            .rev()
            .skip(1)
            .any(|l| l.iter().any(|b| !b.is_ascii_whitespace()));
        if has_line {
            break;
        }
    }
    Ok(bytes)
}

/// `text` as a token: a leading UTF-8 byte order mark and surrounding whitespace dropped;
/// `None` when nothing is left; an error when what is left cannot go in an
/// `Authorization` header (a bearer token is printable ASCII without spaces).
fn token_from_text(
    text: &str,
    source_name: impl FnOnce() -> String,
) -> Result<Option<Token>, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(token) = Token::new(text) else {
        return Ok(None);
    };
    if token.expose().bytes().all(|b| b.is_ascii_graphic()) {
        Ok(Some(token))
    } else {
        Err(ConfigError::InvalidToken {
            source_name: source_name(),
        })
    }
}

#[cfg(unix)]
fn permission_warning(path: &Path, meta: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode();
    (mode & 0o077 != 0).then(|| {
        format!(
            "the token file {} can be read by other users (mode {:o}); run: chmod 600 {}",
            path.display(),
            mode & 0o777,
            path.display()
        )
    })
}

#[cfg(not(unix))]
fn permission_warning(_path: &Path, _meta: &std::fs::Metadata) -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("gobare-config-{name}-{}", uuid::Uuid::new_v4()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn env(&self) -> EnvVars {
            EnvVars {
                gobare_token: None,
                xdg_config_home: Some(self.0.join("config")),
                xdg_state_home: Some(self.0.join("state")),
                screen_reader: None,
            }
        }

        fn write_config(&self, text: &str) {
            let dir = self.0.join("config").join(APP_DIR);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("config.toml"), text).unwrap();
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn resolve(args: &GlobalArgs, env: &EnvVars) -> Result<Config, ConfigError> {
        Config::resolve(args, env, &mut Vec::new())
    }

    #[test]
    fn xdg_directories_are_honoured() {
        let s = Scratch::new("xdg");
        let c = resolve(&GlobalArgs::default(), &s.env()).unwrap();
        assert_eq!(c.state_dir, s.0.join("state/gobare-tui"));
        assert_eq!(c.log_dir, s.0.join("state/gobare-tui/logs"));
        assert_eq!(c.api.as_str(), "https://api.gobare.dev/");
        assert!(c.token.is_none());
    }

    #[test]
    fn api_precedence_is_flag_then_file_then_default() {
        let s = Scratch::new("api");
        s.write_config("api = \"https://file.example\"\n[ui]\ntheme = \"dark\"\nfuture_key = 1\n");
        let from_file = resolve(&GlobalArgs::default(), &s.env()).unwrap();
        assert_eq!(from_file.api.as_str(), "https://file.example/");
        assert_eq!(
            from_file.file.sections["ui"]["theme"].as_str(),
            Some("dark")
        );
        let args = GlobalArgs {
            api: Some(Url::parse("https://flag.example").unwrap()),
            ..GlobalArgs::default()
        };
        assert_eq!(
            resolve(&args, &s.env()).unwrap().api.as_str(),
            "https://flag.example/"
        );
    }

    #[test]
    fn bad_config_file_is_a_clear_error() {
        let s = Scratch::new("bad");
        s.write_config("api = \"not a url\"");
        let e = resolve(&GlobalArgs::default(), &s.env()).unwrap_err();
        assert!(matches!(e, ConfigError::FileApi { .. }), "{e}");
        s.write_config("api = [");
        let e = resolve(&GlobalArgs::default(), &s.env()).unwrap_err();
        assert!(matches!(e, ConfigError::ParseFile { .. }), "{e}");
        s.write_config("[notify]\nwhen = \"always\"\n\n[keys]\nquit = ctrl+q\n");
        let e = resolve(&GlobalArgs::default(), &s.env()).unwrap_err();
        assert!(
            e.to_string()
                .contains("is not valid TOML at line 5, column 8: "),
            "{e}"
        );
    }

    #[test]
    fn a_position_is_counted_as_editors_count_it() {
        assert_eq!(line_and_column("a = 1\nbé = [", 0), (1, 1));
        assert_eq!(line_and_column("a = 1\nbé = [", 6), (2, 1));
        assert_eq!(
            line_and_column("a = 1\nbé = [", 9),
            (2, 3),
            "é is one column"
        );
        assert_eq!(line_and_column("x", 99), (1, 2));
    }

    #[test]
    fn token_file_wins_over_environment_and_is_never_printed() {
        let s = Scratch::new("token");
        let path = s.0.join("token");
        std::fs::write(&path, "\n  gbr_pat_fromfile  \n").unwrap();
        let mut env = s.env();
        env.gobare_token = Some("gbr_pat_fromenv".into());
        let args = GlobalArgs {
            token_file: Some(path.clone()),
            ..GlobalArgs::default()
        };
        let c = resolve(&args, &env).unwrap();
        assert_eq!(c.token.as_ref().unwrap().expose(), "gbr_pat_fromfile");
        assert!(!format!("{c:?}").contains("gbr_pat"));
        let c = resolve(&GlobalArgs::default(), &env).unwrap();
        assert_eq!(c.token.unwrap().expose(), "gbr_pat_fromenv");
        env.gobare_token = Some("   ".into());
        assert!(
            resolve(&GlobalArgs::default(), &env)
                .unwrap()
                .token
                .is_none()
        );
    }

    #[test]
    fn missing_or_empty_token_file_is_an_error() {
        let s = Scratch::new("tokerr");
        let args = |p: PathBuf| GlobalArgs {
            token_file: Some(p),
            ..GlobalArgs::default()
        };
        let e = resolve(&args(s.0.join("absent")), &s.env()).unwrap_err();
        assert!(matches!(e, ConfigError::TokenFile { .. }));
        std::fs::write(s.0.join("empty"), "\n \n").unwrap();
        let e = resolve(&args(s.0.join("empty")), &s.env()).unwrap_err();
        assert!(matches!(e, ConfigError::TokenFileContent { .. }));
    }

    fn token_file_args(path: &Path) -> GlobalArgs {
        GlobalArgs {
            token_file: Some(path.to_path_buf()),
            ..GlobalArgs::default()
        }
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_token() {
        let s = Scratch::new("bom");
        let path = s.0.join("token");
        std::fs::write(&path, "\u{feff}gbr_pat_bom\r\n").unwrap();
        let c = resolve(&token_file_args(&path), &s.env()).unwrap();
        assert_eq!(c.token.unwrap().expose(), "gbr_pat_bom");
        let mut env = s.env();
        env.gobare_token = Some("\u{feff}gbr_pat_envbom".into());
        let c = resolve(&GlobalArgs::default(), &env).unwrap();
        assert_eq!(c.token.unwrap().expose(), "gbr_pat_envbom");
    }

    #[test]
    fn a_token_that_cannot_be_a_header_is_a_configuration_error_that_does_not_quote_it() {
        let s = Scratch::new("badtok");
        for bad in ["gbr_pat_a\x01b", "gbr_pat_a b", "gbr_pat_é", "gbr_pat_\x7f"] {
            let mut env = s.env();
            env.gobare_token = Some(bad.into());
            let e = resolve(&GlobalArgs::default(), &env).unwrap_err();
            assert!(
                matches!(e, ConfigError::InvalidToken { .. }),
                "{bad:?}: {e}"
            );
            assert!(e.to_string().contains("GOBARE_TOKEN"), "{e}");
            assert!(!e.to_string().contains("gbr_pat"), "{e}");
            let path = s.0.join("token");
            std::fs::write(&path, format!("{bad}\n")).unwrap();
            let e = resolve(&token_file_args(&path), &s.env()).unwrap_err();
            assert!(
                matches!(e, ConfigError::InvalidToken { .. }),
                "{bad:?}: {e}"
            );
            assert!(!e.to_string().contains("gbr_pat"), "{e}");
        }
    }

    #[test]
    fn no_token_is_an_error_only_where_one_is_needed() {
        let s = Scratch::new("notok");
        let c = resolve(&GlobalArgs::default(), &s.env()).unwrap();
        let e = c.require_token().unwrap_err();
        assert!(
            e.to_string().contains("set GOBARE_TOKEN or --token-file"),
            "{e}"
        );
        let mut env = s.env();
        env.gobare_token = Some("gbr_pat_ok".into());
        let c = resolve(&GlobalArgs::default(), &env).unwrap();
        assert_eq!(c.require_token().unwrap().expose(), "gbr_pat_ok");
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_token_file_is_read_only_up_to_a_bound() {
        let s = Scratch::new("zero");
        let e = resolve(&token_file_args(Path::new("/dev/zero")), &s.env()).unwrap_err();
        assert!(
            matches!(e, ConfigError::TokenFileContent { problem, .. } if problem.contains("too large")),
            "{e}"
        );
        // A file with a first line after the bound's worth of blank space is no token file
        // either; one with a first line inside it is read, whatever follows.
        let path = s.0.join("big");
        let mut big = "gbr_pat_first\n".to_string();
        big.push_str(&"x".repeat(100_000));
        std::fs::write(&path, big).unwrap();
        let c = resolve(&token_file_args(&path), &s.env()).unwrap();
        assert_eq!(c.token.unwrap().expose(), "gbr_pat_first");
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_with_no_writer_times_out() {
        let s = Scratch::new("fifo");
        let path = s.0.join("fifo");
        mkfifo(&path);
        let started = std::time::Instant::now();
        let e = read_token_file(&path, Duration::from_millis(200), &mut Vec::new()).unwrap_err();
        assert!(matches!(e, ConfigError::TokenFileTimeout { .. }), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5));
        // Unblock the abandoned reader so its thread ends.
        drop(std::fs::OpenOptions::new().write(true).open(&path));
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_fifo_gives_its_first_line() {
        use std::io::Write;
        let s = Scratch::new("yes");
        let path = s.0.join("fifo");
        mkfifo(&path);
        let writer_path = path.clone();
        // Writes until the reader goes away (the write then fails with EPIPE).
        let writer = std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&writer_path)
                .unwrap();
            let mut written = 0usize;
            while f.write_all(b"gbr_pat_fifo\n").is_ok() {
                written += 1;
            }
            written
        });
        let token = read_token_file(&path, Duration::from_secs(10), &mut Vec::new()).unwrap();
        assert_eq!(token.expose(), "gbr_pat_fifo");
        let written = writer.join().unwrap();
        assert!(written < 1 << 20, "read without bound: {written} lines");
    }

    #[cfg(unix)]
    #[test]
    fn token_file_readable_by_others_warns() {
        use std::os::unix::fs::PermissionsExt;
        let s = Scratch::new("perm");
        let path = s.0.join("token");
        std::fs::write(&path, "gbr_pat_x").unwrap();
        let args = GlobalArgs {
            token_file: Some(path.clone()),
            ..GlobalArgs::default()
        };
        for (mode, warns) in [(0o644, true), (0o640, true), (0o600, false)] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let mut warnings = Vec::new();
            Config::resolve(&args, &s.env(), &mut warnings).unwrap();
            assert_eq!(!warnings.is_empty(), warns, "mode {mode:o}");
            assert!(warnings.iter().all(|w| !w.contains("gbr_pat")));
        }
    }

    #[test]
    fn stream_options_follow_the_transport_rule() {
        let s = Scratch::new("stream");
        let mut env = s.env();
        env.gobare_token = Some("gbr_pat_x".into());
        let mut args = GlobalArgs {
            api: Some(Url::parse("http://example.com/v1/").unwrap()),
            ..GlobalArgs::default()
        };
        let c = resolve(&args, &env).unwrap();
        assert!(
            c.stream_options(StreamTarget::Org { root: None }, None)
                .is_err()
        );
        assert!(c.client().is_err());
        args.allow_insecure_http = true;
        let c = resolve(&args, &env).unwrap();
        let o = c
            .stream_options(StreamTarget::Org { root: None }, Some(0))
            .unwrap();
        assert_eq!(o.api.as_str(), "http://example.com/");
        assert_eq!(o.from, Some(0));
    }
}
