//! `gobare-tui demo`: the local simulator plus the UI on a scripted session, no token.
//! (Placeholder until the UI is wired in.)

use crate::config::Config;

pub async fn run(config: Config) -> color_eyre::Result<()> {
    let _ = config;
    Err(super::not_available("`demo`"))
}
