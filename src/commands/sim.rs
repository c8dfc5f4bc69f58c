//! `gobare-tui sim`: run the local control plane until Ctrl+C or SIGTERM.

use gobare_sim::{SimArgs, Simulator};

pub(crate) async fn run(args: SimArgs) -> color_eyre::Result<()> {
    let config = args.to_config();
    let sim = Simulator::start(config).await?;
    let base = sim.url();
    let base = base.as_str().trim_end_matches('/');
    println!(
        "Gobare simulator listening on {base} (scenarios: {})",
        sim.scenarios().join(", ")
    );
    // The one deliberate place the token is printed: a ready-to-use line.
    println!("export GOBARE_API={base} GOBARE_TOKEN={}", sim.token());
    if let Some(dir) = &args.data_dir {
        println!(
            "data kept in {} ({} sessions in it)",
            dir.display(),
            sim.session_ids().len()
        );
    }
    let fleet = sim.fleet().len();
    if fleet > 0 {
        println!("fleet: {fleet} scripted sessions running (see `gobare-tui list`)");
    }
    if args.demo_session {
        let id = sim.create_session(Some("demo"));
        println!("demo session: {id}");
    }
    let tags: Vec<String> = sim.scenarios().iter().map(|n| format!("#{n}")).collect();
    println!(
        "Tag a message with {} to pick a scenario. Ctrl+C stops.",
        tags.join(", ")
    );
    wait_for_stop().await;
    sim.shutdown().await;
    Ok(())
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
