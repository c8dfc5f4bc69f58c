//! What a workspace holding the repository costs per session, measured and printed, not
//! asserted (run in release, on its own):
//!
//! ```sh
//! cargo test -p gobare-sim --release -- --ignored workspace_cost --nocapture
//! ```
//!
//! For 60 and 500 sessions: the time per `POST /v1/sessions` (each one's workspace is the
//! shared repository), RSS per session created, then per session after one file written
//! to each workspace (its copy of the repository's map), and after a refresh of each
//! (a snapshot: a pointer to that copy).

use std::time::Instant;

use gobare_sim::{SimConfig, Simulator};
use serde_json::json;

fn rss_kb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0)
}

async fn measure(n: usize) {
    let mut config = SimConfig {
        token: Some("gbr_pat_cost".into()),
        max_sessions: n + 25,
        ..SimConfig::default()
    };
    config.rate_limits.enforce = false;
    let sim = Simulator::start(config).await.unwrap();
    let http = reqwest::Client::new();
    let url = |path: &str| format!("{}{}", sim.url().as_str().trim_end_matches('/'), path);
    // One create first, so what is built once (the repository, the client) is not counted.
    let warm = http
        .post(url("/v1/sessions"))
        .bearer_auth(sim.token())
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status().as_u16(), 201);
    let rss_before = rss_kb();
    let started = Instant::now();
    let mut ids = Vec::new();
    for _ in 0..n {
        let r = http
            .post(url("/v1/sessions"))
            .bearer_auth(sim.token())
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201);
        let body: serde_json::Value = r.json().await.unwrap();
        ids.push(body["id"].as_str().unwrap().to_string());
    }
    let per_create = started.elapsed().as_secs_f64() * 1e6 / n as f64;
    let rss_created = rss_kb();
    for id in &ids {
        sim.write_workspace_file(id, "notes/mine.md", b"one change\n");
    }
    let rss_written = rss_kb();
    for id in &ids {
        let r = http
            .get(url(&format!("/v1/sessions/{id}/files?refresh=1")))
            .bearer_auth(sim.token())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
    }
    let rss_snapshot = rss_kb();
    println!(
        "{n} sessions: {per_create:.0} µs a create; RSS +{:.2} KB a session created, \
         +{:.2} KB a session after one file written, +{:.2} KB after a snapshot of each",
        (rss_created - rss_before) / n as f64,
        (rss_written - rss_created) / n as f64,
        (rss_snapshot - rss_written) / n as f64,
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, run in release"]
async fn workspace_cost() {
    measure(60).await;
    measure(500).await;
}
