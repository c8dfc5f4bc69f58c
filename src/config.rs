//! Flags + environment + config file → [`Config`]; XDG paths for config, state and logs.
//!
//! Precedence: command-line flag > environment variable > config file > default. The
//! token comes only from `--token-file` or `GOBARE_TOKEN`, never from a flag value or the
//! config file.

use crate::cli::GlobalArgs;
use gobare_api::auth::Token;
use gobare_api::client::{
    ApiClient, ClientOptions, DEFAULT_API, check_transport, normalize_api_base,
};
use gobare_api::error::ApiError;
use gobare_api::stream::{StreamOptions, StreamTarget};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use url::Url;

const APP_DIR: &str = "gobare-tui";
/// A token file larger than this is certainly not a token.
const MAX_TOKEN_FILE_BYTES: u64 = 64 * 1024;

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
        }
    }
}

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
    #[error("cannot read the config file {path}: {source}")]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the config file {path} is not valid TOML: {message}")]
    ParseFile { path: PathBuf, message: String },
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
        let config = Config::resolve(args, &EnvVars::from_process(), &mut warnings)?;
        for w in warnings {
            eprintln!("gobare-tui: warning: {w}");
        }
        Ok(config)
    }

    /// [`Config::load`] with the environment given, for tests.
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
            Some(path) => Some(read_token_file(path, warnings)?),
            None => env.gobare_token.as_deref().and_then(Token::new),
        };

        Ok(Config {
            api,
            token,
            allow_insecure_http: args.allow_insecure_http,
            verbose: args.verbose,
            log_dir: state_dir.join("logs"),
            state_dir,
            file,
        })
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
        message: e.message().to_string(),
    })
}

/// The first non-empty line of the file. Errors never quote the file's contents.
fn read_token_file(path: &Path, warnings: &mut Vec<String>) -> Result<Token, ConfigError> {
    let io_err = |source| ConfigError::TokenFile {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io_err)?;
    if meta.len() > MAX_TOKEN_FILE_BYTES {
        return Err(ConfigError::TokenFileContent {
            path: path.to_path_buf(),
            problem: "too large to be a token",
        });
    }
    if let Some(w) = permission_warning(path, &meta) {
        warnings.push(w);
    }
    let text = std::fs::read_to_string(path).map_err(io_err)?;
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .and_then(Token::new)
        .ok_or_else(|| ConfigError::TokenFileContent {
            path: path.to_path_buf(),
            problem: "empty",
        })
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
