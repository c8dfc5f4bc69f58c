//! `gobare-tui sim`: run the local control plane until Ctrl+C. (Being written.)

use crate::sim::args::SimArgs;

pub async fn run(args: SimArgs) -> color_eyre::Result<()> {
    let _ = args;
    color_eyre::eyre::bail!("the simulator is being written")
}
