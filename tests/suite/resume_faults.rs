#![cfg(unix)]
//! Resume under faults (issue 2) against the real simulator over real HTTP: `tail --from 0`
//! (the binary) and `api::stream::spawn` into the app's model both deliver every persisted
//! event exactly once, in order, whatever the connection does; every reconnect carries the
//! cursor of the last event delivered.

use crate::support;

use crate::support::faults::{
    Consumed, RETRY_MS, announced_reconnects, options, screen, tail_until,
};
use gobare_api::stream::spawn;
use gobare_sim::{Faults, SimConfig, Simulator};
use gobare_tui::session::transcript::EntryKind;
use std::time::Duration;

const EVENTS: u64 = 5_000;

async fn seeded(config: SimConfig) -> (Simulator, String) {
    let sim = Simulator::start(config).await.unwrap();
    let id = sim.create_session(Some("resume"));
    sim.seed_events(&id, EVENTS as usize);
    (sim, id)
}

/// The cursors a drop every `n` frames must produce: each connection writes `n - 1` whole
/// frames and half of the `n`th, so the cursor advances by `n - 1` per connection.
fn expected_opens(first: u64, last: u64, n: u64) -> Vec<Option<u64>> {
    let mut cursors = vec![Some(0)];
    let mut c = first - 1;
    while c + (n - 1) < last {
        c += n - 1;
        cursors.push(Some(c));
    }
    cursors
}

#[tokio::test]
async fn tail_prints_every_seq_once_across_drops_every_n_frames_with_exact_cursors() {
    let (sim, id) = seeded(support::faults::sim_config()).await;
    let (first, last) = (sim.last_seq() - EVENTS + 1, sim.last_seq());
    sim.set_faults(Faults {
        drop_every_n_frames: Some(700),
        chunk_writes: Some((1, 300)),
        crlf: true,
        ..Faults::default()
    });
    let run = tail_until(&sim, &id, 0, last, &[], Duration::from_secs(120)).await;
    assert_eq!(run.code, Some(0), "SIGTERM exits 0: {}", run.stderr);
    assert_eq!(run.persisted(), (first..=last).collect::<Vec<_>>());
    assert_eq!(run.lines.len() as u64, EVENTS, "nothing but the events");
    // The opens after the one that delivered `last` are not ours to predict (the client is
    // still following); the ones before are exact.
    let opens = sim.stream_opens();
    let expected = expected_opens(first, last, 700);
    assert_eq!(opens[..expected.len()], expected[..], "{opens:?}");
    sim.shutdown().await;
}

#[tokio::test]
async fn tail_survives_random_drops_429_and_503_with_retry_after() {
    let (sim, id) = seeded(support::faults::sim_config()).await;
    let (first, last) = (sim.last_seq() - EVENTS + 1, sim.last_seq());
    // Random mid-frame drops (~10 over the replay) and refusals of both kinds, switched
    // half way so both statuses are met.
    let faults = |status| Faults {
        drop_probability: 0.002,
        refuse_share: 0.3,
        refuse_status: status,
        refuse_retry_after_secs: 1,
        chunk_writes: Some((1, 500)),
        ..Faults::default()
    };
    sim.set_faults(faults(429));
    let flip = async {
        let opens_seen = async {
            while sim.stream_opens().len() < 4 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        if tokio::time::timeout(Duration::from_secs(60), opens_seen)
            .await
            .is_ok()
        {
            sim.set_faults(faults(503));
        }
    };
    let (run, ()) = tokio::join!(
        tail_until(&sim, &id, 0, last, &["--verbose"], Duration::from_secs(120)),
        flip
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.persisted(), (first..=last).collect::<Vec<_>>());
    let opens = sim.stream_opens();
    let printed: std::collections::BTreeSet<u64> = run.persisted().into_iter().collect();
    assert!(
        opens.windows(2).all(|w| w[0] <= w[1]),
        "cursors never go back: {opens:?}"
    );
    for c in opens.iter().skip(1) {
        let c = c.expect("a resume always carries a cursor");
        assert!(printed.contains(&c), "cursor {c} was never printed");
    }
    // Every refusal was waited out for at least its Retry-After (1 s).
    let reconnects = announced_reconnects(&run.stderr);
    let refusals: Vec<_> = reconnects
        .iter()
        .filter(|(_, l)| l.contains("HTTP 429") || l.contains("HTTP 503"))
        .collect();
    for (wait, line) in &refusals {
        assert!(*wait >= Duration::from_secs(1), "{line}");
    }
    assert!(!run.stderr.contains(&sim.token()));
    sim.shutdown().await;
}

#[tokio::test]
async fn tail_meets_both_refusal_statuses_and_waits_retry_after() {
    let (sim, id) = seeded(support::faults::sim_config()).await;
    let last = sim.last_seq();
    for status in [429, 503] {
        sim.set_faults(Faults {
            refuse_share: 0.5,
            refuse_status: status,
            refuse_retry_after_secs: 1,
            drop_every_n_frames: Some(1_500),
            ..Faults::default()
        });
        // Half of all opens are refused at random, so a streak of refusals (the backoff
        // doubling towards its cap) may take minutes; the bound only catches a hang.
        let run = tail_until(&sim, &id, 0, last, &["--verbose"], Duration::from_secs(300)).await;
        assert_eq!(run.persisted().len() as u64, EVENTS);
        assert!(run.persisted().windows(2).all(|w| w[0] < w[1]));
        for (wait, line) in announced_reconnects(&run.stderr) {
            if line.contains(&format!("HTTP {status}")) {
                assert!(wait >= Duration::from_secs(1), "{line}");
            } else {
                // A drop after delivering: the retry: hint (1 ms) is floored at 250 ms.
                assert!(wait >= Duration::from_millis(200), "{line}");
            }
        }
    }
    sim.shutdown().await;
}

#[tokio::test]
async fn a_small_replay_cap_loses_nothing_in_tail() {
    let config = SimConfig {
        replay_cap: 700,
        ..support::faults::sim_config()
    };
    let (sim, id) = seeded(config).await;
    let (first, last) = (sim.last_seq() - EVENTS + 1, sim.last_seq());
    let run = tail_until(&sim, &id, 0, last, &[], Duration::from_secs(120)).await;
    assert_eq!(run.persisted(), (first..=last).collect::<Vec<_>>());
    // Each truncation notice is printed too (transient, no seq), one per capped replay.
    let notices = run
        .lines
        .iter()
        .filter(|l| l.contains("gobare.replay_truncated"))
        .count();
    assert_eq!(notices as u64, EVENTS / 700, "{notices}");
    // The reconnects collect the rest from each from_seq.
    let opens = sim.stream_opens();
    assert_eq!(
        opens[..3],
        [Some(0), Some(first - 1 + 700), Some(first - 1 + 1400)]
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn the_model_applies_every_persisted_event_once_across_drops_and_truncation() {
    let config = SimConfig {
        replay_cap: 900,
        ..support::faults::sim_config()
    };
    let (sim, id) = seeded(config).await;
    let (first, last) = (sim.last_seq() - EVENTS + 1, sim.last_seq());

    // The reference: the same session read without any fault.
    let mut reference = Consumed::new(&id);
    let mut clean = spawn(options(&sim, &id, Some(0)));
    reference
        .until_seq(&mut clean.updates, last, Duration::from_secs(60))
        .await;
    drop(clean);

    sim.set_faults(Faults {
        drop_probability: 0.003,
        drop_every_n_frames: Some(611),
        refuse_share: 0.2,
        refuse_status: 503,
        refuse_retry_after_secs: 1,
        chunk_writes: Some((1, 400)),
        crlf: true,
        ..Faults::default()
    });
    let opens_before = sim.stream_opens().len();
    let mut model = Consumed::new(&id);
    let mut handle = spawn(options(&sim, &id, Some(0)));
    model
        .until_seq(&mut handle.updates, last, Duration::from_secs(120))
        .await;

    assert_eq!(model.applied, (first..=last).collect::<Vec<_>>());
    assert_eq!(model.view.last_seq(), Some(last));
    assert!(model.skipped.is_empty(), "{:?}", model.skipped);
    // Truncation notices differ (drops restart the replay before the cap is reached);
    // everything built from persisted events is the same.
    let settled = |c: &Consumed| {
        c.view
            .transcript()
            .entries()
            .iter()
            .filter(|e| !matches!(e.kind, EntryKind::ReplayTruncated { .. }))
            .map(|e| e.kind.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(settled(&model), settled(&reference));
    // Same persisted events, same screen — apart from the connection dot and the
    // truncation note, which legitimately differ; compare with both set the same.
    let cap = |c: &mut Consumed| {
        c.view.apply(gobare_tui::session::Update::Connection(
            gobare_api::stream::ConnectionState::Live,
        ));
    };
    cap(&mut model);
    cap(&mut reference);
    assert_eq!(
        screen(&model.view, 160, 48),
        screen(&reference.view, 160, 48)
    );

    let opens = &sim.stream_opens()[opens_before..];
    assert!(opens.len() > 5, "faults hit: {opens:?}");
    assert!(opens.windows(2).all(|w| w[0] <= w[1]), "{opens:?}");
    let reconnect_waits = model.announced_waits();
    let shortest = reconnect_waits.iter().map(|w| w.0).min().unwrap();
    assert!(
        shortest >= Duration::from_millis(RETRY_MS),
        "never below the retry: hint"
    );
    sim.shutdown().await;
}
