//! The store's budgets, measured and printed, not asserted (run in release, on its own):
//!
//! ```sh
//! cargo test -p gobare-sim --release --locked -- --ignored store_budgets --nocapture
//! ```
//!
//! A `--fleet 500 --fleet-activity 5000` simulator runs for `BUDGET_SECS` (default 180)
//! on a data directory, then as long without one: every 30 s, RSS (of this process), the
//! persisted events a second it emitted (the deltas, 3 of each synthetic turn's 13 events,
//! are transient: 5,000 a second asked is about 3,850 persisted) and the p50/p99 of
//! `GET /v1/sessions?limit=100` (asked every 100 ms), and at the end the list's p50/p99
//! before the store reached its retention bound (`BUDGET_RETENTION`, default 1,000,000
//! persisted events) and with it reached; then a stream replay of 50,000 events on it is
//! timed. Last, the same replay on an idle simulator with and without a data
//! directory, best of three each.

use std::time::{Duration, Instant};

use gobare_sim::{SimConfig, Simulator};

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn config(data: Option<&std::path::Path>) -> SimConfig {
    let mut config = SimConfig {
        token: Some("gbr_pat_budget".into()),
        data_dir: data.map(|d| d.to_path_buf()),
        ..SimConfig::default()
    };
    config.rate_limits.enforce = false;
    if let Some(retention) = std::env::var("BUDGET_RETENTION")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        config.retention_events = retention;
    }
    config
}

/// The p50 and p99 of `samples`, in ms, with how many there were.
fn summary(samples: &mut [Duration]) -> String {
    samples.sort();
    format!(
        "p50={:.1}ms p99={:.1}ms max={:.1}ms (n={})",
        percentile(samples, 0.5).as_secs_f64() * 1e3,
        percentile(samples, 0.99).as_secs_f64() * 1e3,
        samples.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        samples.len()
    )
}

/// Seconds to replay `n` persisted events of `session` from 0, reading as fast as it
/// comes (frames counted by their `id:` lines).
async fn time_replay(sim: &Simulator, session: &str, n: usize) -> f64 {
    let url = format!("{}v1/sessions/{session}/events?last_event_id=0", sim.url());
    let started = Instant::now();
    let mut resp = reqwest::Client::new()
        .get(url)
        .bearer_auth(sim.token())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let (mut seen, mut carry) = (0, Vec::<u8>::new());
    while seen < n {
        let chunk = tokio::time::timeout(Duration::from_secs(120), resp.chunk())
            .await
            .expect("the replay keeps coming")
            .unwrap()
            .expect("the replay does not end early");
        carry.extend_from_slice(&chunk);
        seen += carry.windows(5).filter(|w| w == b"\nid: ").count();
        let keep = carry.len().saturating_sub(4);
        carry.drain(..keep);
    }
    started.elapsed().as_secs_f64()
}

async fn replay_on(data: Option<&std::path::Path>) -> f64 {
    let sim = Simulator::start(config(data)).await.unwrap();
    let id = sim.create_session(Some("replay"));
    sim.seed_events(&id, 50_000);
    let secs = time_replay(&sim, &id, 50_000).await;
    sim.shutdown().await;
    secs
}

/// Runs the busy fleet for `secs`, printing every 30 s; then times a replay of 50,000
/// events on it.
async fn soak(label: &str, data: Option<&std::path::Path>, secs: u64) {
    let mut busy = config(data).with_fleet(500);
    let retention = busy.retention_events;
    // The list's latencies before the store reached its bound, and with it reached.
    let (mut uncapped, mut capped) = (Vec::new(), Vec::new());
    busy.fleet_activity = 5000;
    let sim = Simulator::start(busy).await.unwrap();
    let http = reqwest::Client::new();
    let list = format!("{}v1/sessions?limit=100", sim.url());
    let started = Instant::now();
    let mut window = Vec::new();
    let mut all = Vec::new();
    let mut next_report = started + Duration::from_secs(30);
    let mut last_seq = sim.last_seq();
    println!("[{label}] t=0s rss={:.0}MB", rss_mb());
    while started.elapsed() < Duration::from_secs(secs) {
        let asked = Instant::now();
        let resp = http
            .get(&list)
            .bearer_auth(sim.token())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        resp.bytes().await.unwrap();
        let took = asked.elapsed();
        window.push(took);
        if sim.last_seq() >= retention {
            capped.push(took);
        } else {
            uncapped.push(took);
        }
        if Instant::now() >= next_report {
            window.sort();
            let seq = sim.last_seq();
            println!(
                "[{label}] t={}s rss={:.0}MB persisted events/s={} list p50={:.1}ms p99={:.1}ms (n={})",
                started.elapsed().as_secs(),
                rss_mb(),
                (seq - last_seq) / 30,
                percentile(&window, 0.5).as_secs_f64() * 1e3,
                percentile(&window, 0.99).as_secs_f64() * 1e3,
                window.len()
            );
            last_seq = seq;
            all.append(&mut window);
            next_report += Duration::from_secs(30);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    all.append(&mut window);
    all.sort();
    println!(
        "[{label}] list overall p50={:.1}ms p99={:.1}ms (n={})",
        percentile(&all, 0.5).as_secs_f64() * 1e3,
        percentile(&all, 0.99).as_secs_f64() * 1e3,
        all.len()
    );
    println!(
        "[{label}] list before the bound of {retention}: {}; with it reached: {}",
        summary(&mut uncapped),
        summary(&mut capped)
    );
    let replayed = sim.create_session(Some("replay"));
    sim.seed_events(&replayed, 50_000);
    let busy_replay = time_replay(&sim, &replayed, 50_000).await;
    println!(
        "[{label}] replay of 50,000 on the busy simulator ({} events stored): {busy_replay:.2}s",
        sim.last_seq()
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes long; a measurement, run in release"]
async fn store_budgets() {
    let secs: u64 = std::env::var("BUDGET_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(180);
    // BUDGET_SOAKS=data,temp (the default) picks the soaks run: with a data directory,
    // without one.
    let soaks = std::env::var("BUDGET_SOAKS").unwrap_or_else(|_| "data,temp".into());
    let dir = tempfile::tempdir().unwrap();
    if soaks.contains("data") {
        soak("data dir", Some(dir.path()), secs).await;
    }
    if soaks.contains("temp") {
        soak("no data dir", None, secs).await;
    }

    let mut kept = Vec::new();
    let mut temp = Vec::new();
    for _ in 0..3 {
        let kept_dir = tempfile::tempdir().unwrap();
        kept.push(replay_on(Some(kept_dir.path())).await);
        temp.push(replay_on(None).await);
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
    println!(
        "replay of 50,000, idle, best of 3: data dir {:.3}s, no data dir {:.3}s (ratio {:.2}); all: {kept:.3?} / {temp:.3?}",
        best(&kept),
        best(&temp),
        best(&kept) / best(&temp)
    );
}
