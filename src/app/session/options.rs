//! How to open the app on a session.

use crate::config::Config;
use crate::store::StateStore;
use gobare_api::client::ApiClient;
use gobare_api::stream::{StreamOptions, StreamTarget};

pub(crate) struct AppOptions {
    pub(crate) client: ApiClient,
    /// Where and how to stream; the app chooses `target` and `from` itself (§11.1/§11.2).
    pub(crate) stream: StreamOptions,
    pub(crate) session_id: String,
    /// Shown in the status bar (e.g. `api.gobare.dev`).
    pub(crate) api_host: String,
    /// The status bar says "local demo".
    pub(crate) local_demo: bool,
    /// The demo keeps its sessions: quitting it loses only a running turn.
    pub(crate) demo_kept: bool,
    /// Per-host state (cursor, draft…); `None` keeps nothing (the demo's throwaway server).
    pub(crate) store: Option<StateStore>,
    /// A brand-new session's first message: the stream is opened live-only first and the
    /// message sent once it is connected (§11.1, subscribe before sending).
    pub(crate) first_message: Option<String>,
    /// Start with mouse capture on.
    pub(crate) mouse: bool,
    /// The config file's notification and theme preferences.
    pub(crate) settings: crate::app::shared::settings::Settings,
    /// Configuration warnings already printed on stderr, which the app's screen covers:
    /// shown again in the status bar when it opens.
    pub(crate) warnings: Vec<String>,
    /// The screen-reader mode, and what turned it on (`--screen-reader`, the environment or
    /// the config file): lines instead of a screen.
    pub(crate) screen_reader: Option<String>,
    /// The fleet kept live behind the app: its sessions that come to need the user are
    /// announced from here too (all but this session, which announces itself).
    pub(crate) fleet: Option<crate::app::shared::announcements::Announcements>,
    /// Open the changes view at once (`D` on a fleet row).
    pub(crate) open_changes: bool,
}

impl AppOptions {
    pub(crate) fn new(
        client: ApiClient,
        stream: StreamOptions,
        session_id: impl Into<String>,
    ) -> Self {
        let api_host = stream.api.host_str().unwrap_or_default().to_string();
        let api_host = match stream.api.port() {
            Some(port) => format!("{api_host}:{port}"),
            None => api_host,
        };
        AppOptions {
            client,
            stream,
            session_id: session_id.into(),
            api_host,
            local_demo: false,
            demo_kept: false,
            store: None,
            first_message: None,
            mouse: true,
            settings: Default::default(),
            warnings: Vec::new(),
            screen_reader: None,
            fleet: None,
            open_changes: false,
        }
    }
}

impl AppOptions {
    /// The app's options for `session_id` under `config`, with the settings the runtime
    /// read once and the warnings still to show (the first front shows them).
    pub(crate) fn for_session(
        config: &Config,
        session_id: &str,
        settings: &crate::app::shared::settings::Settings,
        warnings: Vec<String>,
    ) -> color_eyre::Result<AppOptions> {
        let client = config.client()?;
        let stream = config.stream_options(StreamTarget::Session(session_id.to_string()), None)?;
        let mut options = AppOptions::new(client, stream, session_id);
        options.warnings = warnings;
        options.settings = settings.clone();
        options.local_demo = config.local_demo;
        options.screen_reader = config.screen_reader.clone();
        options.demo_kept = config.demo_kept;
        // Without a writable state directory the app still runs: the state stays in memory,
        // the app says so, and it is written if the directory becomes writable.
        if let Err(e) = StateStore::open(&config.state_dir, &config.api) {
            tracing::warn!(
                "cannot open the state directory {}: {e}",
                config.state_dir.display()
            );
        }
        options.store = Some(StateStore::at(&config.state_dir, &config.api));
        Ok(options)
    }
}
