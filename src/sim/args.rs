//! `gobare-tui sim` options (also used to configure the simulator in tests and `demo`).
//! INTERFACE CONTRACT: the sim helper extends this with fault and speed flags.

use std::net::SocketAddr;

#[derive(Debug, Clone, clap::Args)]
pub struct SimArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:4780")]
    pub addr: SocketAddr,
    /// Token clients must present (a random one is made when omitted).
    #[arg(long)]
    pub token: Option<String>,
    /// Speed factor for the scripted agent (2 = twice as fast).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
}
