//! `gobare-tui fleet [--root ID] [--label K=V]`: the runtime with the fleet in front (one
//! crew with `--root`; the sessions labelled `K=V` with `--label`, matched in the fleet).

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
        // The org stream cannot be filtered by label: the fleet matches labels itself.
        filter: args.label.as_ref().map(|(k, v)| format!("{k}={v}")),
    };
    runtime::run(config, start).await
}
