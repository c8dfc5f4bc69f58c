//! `gobare-tui attach SESSION_ID`: open an existing session in the full-screen UI, resuming
//! from the cursor stored for it (or replaying its whole history the first time, §11.2).

use crate::app::AppOptions;
use crate::cli::AttachArgs;
use crate::config::Config;
use crate::store::StateStore;
use color_eyre::eyre::WrapErr;
use gobare_api::stream::StreamTarget;

pub async fn run(config: Config, args: AttachArgs) -> color_eyre::Result<()> {
    let options = options(&config, &args.session_id)?;
    super::pick::run_app(config, options).await
}

/// The app's options for `session_id` under `config` (shared with `start` and `new`).
pub fn options(config: &Config, session_id: &str) -> color_eyre::Result<AppOptions> {
    let client = config.client()?;
    let stream = config.stream_options(StreamTarget::Session(session_id.to_string()), None)?;
    let mut options = AppOptions::new(client, stream, session_id);
    let (settings, warnings) = crate::app::settings::Settings::from_sections(&config.file.sections);
    for warning in warnings {
        tracing::warn!("{warning}");
        eprintln!("gobare-tui: {warning}");
    }
    options.settings = settings;
    options.picker = true;
    // Without a writable state directory the app still runs; it just remembers nothing.
    options.store = match StateStore::open(&config.state_dir, &config.api).wrap_err_with(|| {
        format!(
            "cannot open the state directory {}",
            config.state_dir.display()
        )
    }) {
        Ok(store) => Some(store),
        Err(e) => {
            tracing::warn!("{e:#}");
            None
        }
    };
    Ok(options)
}
