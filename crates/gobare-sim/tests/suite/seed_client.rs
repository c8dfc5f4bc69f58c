//! A plain Python client written from the reference alone (`scripts/clients/two_rounds.py`,
//! standard library only) runs both of its rounds against the default simulator: an untagged
//! message never parks on an approval under the default policy, round 2's reply refers to
//! round 1, `items?limit=200` is refused with 400, and no event id repeats.

use std::path::Path;
use std::process::Command;

use gobare_sim::SimConfig;

use crate::support::Api;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_client_runs_two_rounds_against_the_default_simulator() {
    // The default simulator in every way but its clock: the default scenario rotation,
    // policy, rate limits and slot limits.
    let api = Api::start(SimConfig {
        speed: 20.0,
        ..SimConfig::default()
    })
    .await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/clients/two_rounds.py");
    let (base, token) = (api.base.clone(), api.token.clone());
    let out = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(&script)
            .env("GOBARE_API", base)
            .env("GOBARE_TOKEN", token)
            .env("TWO_ROUNDS_TIMEOUT_S", "30")
            .output()
            .expect("python3 runs (the CI machine has CPython 3.11)")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("round 2: completed"), "{stdout}");
}
