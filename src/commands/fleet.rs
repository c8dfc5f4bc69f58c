//! `gobare-tui fleet [--root ID]`: the runtime with the fleet in front (one crew with
//! `--root`).

use crate::app::runtime::{self, Start};
use crate::cli::FleetArgs;
use crate::config::Config;

pub(crate) async fn run(config: Config, args: FleetArgs) -> color_eyre::Result<()> {
    config.require_token()?;
    let root = match &args.root {
        Some(typed) => Some(super::session_id::resolve(&config, typed).await?),
        None => None,
    };
    let start = Start::Fleet {
        notice: None,
        root,
        selected: None,
    };
    runtime::run(config, start).await
}
