//! The live fleet against the simulator: a complete fleet from the list and the org
//! stream, sessions created later appear, and a refused org stream falls back to polling
//! the list with a note.

use crate::support::actions::{Rig, WAIT, message};
use gobare_api::auth::Token;
use gobare_api::stream::{StreamOptions, StreamTarget};
use gobare_sim::{Faults, SimConfig};
use gobare_tui::app::fleet::live::{FleetLive, FleetSource};
use gobare_tui::fleet::model::FleetModel;
use gobare_tui::session::attention::{Attention, Needs};
use std::time::Duration;

fn live(rig: &Rig, poll_every: Duration) -> FleetLive {
    live_under(rig, None, poll_every)
}

/// The fleet of one crew (`root`) or the whole organization.
fn live_under(rig: &Rig, root: Option<String>, poll_every: Duration) -> FleetLive {
    FleetLive::start(FleetSource {
        client: (*rig.client).clone(),
        stream: StreamOptions {
            api: rig.sim.url(),
            token: Token::new(rig.sim.token()),
            target: StreamTarget::Org { root: root.clone() },
            ..StreamOptions::default()
        },
        root,
        store: Some(rig.store()),
        poll_every,
        reads_per_minute: gobare_tui::app::fleet::details::READS_PER_MINUTE,
    })
}

/// Waits (on the fleet's own change signal) until `check` holds.
/// Sends `text` to `session` under a fresh key.
async fn send(rig: &Rig, session: &str, text: &str) {
    rig.client
        .send(
            session,
            &message(text),
            &gobare_api::client::IdempotencyKey::new(),
        )
        .await
        .unwrap();
}

async fn until(fleet: &FleetLive, what: &str, check: impl Fn(&FleetModel) -> bool) {
    let waited = tokio::time::timeout(WAIT, async {
        loop {
            let changed = fleet.changed();
            if check(&fleet.model()) {
                return;
            }
            changed.await;
        }
    })
    .await;
    if waited.is_err() {
        let model = fleet.model();
        let rows: Vec<_> = model.rows().collect();
        panic!("timed out waiting for {what}: {rows:#?}");
    }
}

#[tokio::test]
async fn the_fleet_holds_every_session_says_what_each_needs_and_follows_new_ones() {
    let rig = Rig::start(SimConfig::for_tests().with_fleet(12)).await;
    let mut fleet = live(&rig, Duration::from_secs(60));
    let ids = rig.sim.fleet();
    until(&fleet, "every session, the waiting ones needing you", |m| {
        let needs: Vec<Option<Needs>> = m.rows().map(|r| r.needs()).collect();
        m.len() == ids.len()
            && needs
                .iter()
                .filter(|n| **n == Some(Needs::Approval))
                .count()
                == 2
            && needs
                .iter()
                .filter(|n| **n == Some(Needs::Question))
                .count()
                == 2
            && needs
                .iter()
                .filter(|n| **n == Some(Needs::FunctionCall))
                .count()
                == 2
            && m.rows().all(|r| r.label().is_some())
    })
    .await;
    {
        let model = fleet.model();
        let crew: Vec<_> = model.rows().filter(|r| r.parent.is_some()).collect();
        assert_eq!(crew.len(), 4, "two crews of a lead and two members");
        assert!(
            model
                .rows()
                .filter(|r| r.attention() == Attention::NeedsYou)
                .all(|r| ids.contains(&r.id))
        );
        assert!(model.note().is_none(), "{:?}", model.note());
    }
    fleet.drain_needs_you();
    let later = rig.sim.create_session(Some("started later"));
    send(&rig, &later, "hello #approval").await;
    until(&fleet, "the later session, titled, waiting", |m| {
        m.get(&later).is_some_and(|r| {
            r.title.as_deref() == Some("started later") && r.needs() == Some(Needs::Approval)
        })
    })
    .await;
    let announced = tokio::time::timeout(WAIT, fleet.next_needs_you())
        .await
        .unwrap()
        .expect("announced");
    assert_eq!(announced.id, later, "announced");
    // Named as the fleet knew it then: the stream carried its first message, not its title.
    assert_eq!(announced.line, "hello #approval: needs you: approval");
    let opens = rig.sim.stream_opens();
    assert_eq!(opens, [None], "one org stream, opened live once: {opens:?}");
    rig.sim.shutdown().await;
}

#[tokio::test]
async fn a_refused_org_stream_falls_back_to_polling_the_list_with_a_note() {
    let rig = Rig::test().await;
    rig.sim.set_faults(Faults {
        refuse_org_stream: true,
        ..Faults::default()
    });
    let first = rig.sim.create_session(Some("listed first"));
    let fleet = live(&rig, Duration::from_millis(200));
    until(&fleet, "the note and the listed session", |m| {
        m.get(&first).is_some()
            && m.trouble().is_some_and(|t| {
                t.line(0) == "org stream refused (403, needs sessions:read) — polling every 200 ms"
            })
    })
    .await;
    let second = rig.sim.create_session(Some("listed by a poll"));
    until(&fleet, "the next poll's session", |m| {
        m.get(&second).is_some()
    })
    .await;
    rig.client
        .delete_session(&first, &gobare_api::client::IdempotencyKey::new())
        .await
        .unwrap();
    until(&fleet, "the deleted session gone", |m| {
        m.get(&first).is_none()
    })
    .await;
    rig.sim.shutdown().await;
}

#[tokio::test]
async fn a_fleet_under_a_root_holds_that_crew_only() {
    let rig = Rig::start(SimConfig::for_tests().with_fleet(12)).await;
    let lead = rig.sim.fleet()[0].clone();
    let fleet = live_under(&rig, Some(lead.clone()), Duration::from_secs(60));
    until(&fleet, "the lead and its two members, labelled", |m| {
        m.len() == 3
            && m.rows().all(|r| r.label().is_some())
            && m.rows()
                .filter(|r| r.id != lead)
                .all(|r| r.parent.as_deref() == Some(lead.as_str()))
    })
    .await;
    assert!(
        rig.sim
            .requests()
            .iter()
            .any(|r| r.starts_with("GET /v1/events") && r.contains(&format!("root={lead}"))),
        "the org stream of that tree"
    );
    rig.sim.shutdown().await;
}

/// Turns under way before the fleet opened have a clock without their rows being asked
/// for: the start is read from one page of each session's turns, since the org stream
/// never carried it.
#[tokio::test]
async fn a_turn_under_way_before_the_fleet_opened_gets_its_clock_from_its_turns() {
    let rig = Rig::start(SimConfig::for_tests().with_fleet(12)).await;
    let ids = rig.sim.fleet();
    let complete = |m: &FleetModel| {
        m.len() == ids.len() && m.rows().filter(|r| r.needs().is_some()).count() == 6
    };
    // The fleet opens once the waits exist, as the server's list says.
    tokio::time::timeout(WAIT, async {
        loop {
            let listed = rig
                .client
                .list_sessions(&gobare_api::client::Page::default().with_limit(100))
                .await
                .expect("the list");
            if listed
                .data
                .iter()
                .filter(|s| !s.required_actions.is_empty())
                .count()
                == 6
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("six sessions waiting");
    let requests_before = rig.sim.requests().len();
    let opened_ms = gobare_api::clock::unix_ms();
    let fleet = live(&rig, Duration::from_secs(60));
    until(&fleet, "every session, from the list", complete).await;
    let waiting: Vec<String> = fleet
        .model()
        .rows()
        .filter(|r| r.needs().is_some())
        .map(|r| r.id.clone())
        .collect();
    until(&fleet, "a clock on every waiting session", |m| {
        waiting
            .iter()
            .all(|id| m.get(id).is_some_and(|r| r.turn_started_at.is_some()))
    })
    .await;
    // One page of turns per session, and one more per turn that ended since (the fleet
    // reads its outcome): never a read per turn of the history.
    let requests = rig.sim.requests();
    let mut reads = 0;
    for id in &ids {
        let path = format!("GET /v1/sessions/{id}/turns");
        let read = requests[requests_before..]
            .iter()
            .filter(|r| r.starts_with(&path))
            .count();
        let turns = rig
            .client
            .list_turns(id, &gobare_api::client::Page::default().with_limit(100))
            .await
            .expect("the turns");
        let ended_since = turns
            .data
            .iter()
            .filter(|t| t.completed_at.is_some_and(|at| at >= opened_ms))
            .count();
        assert!(
            read <= 1 + ended_since,
            "{id}: {read} reads of its turns, {ended_since} ended since the fleet opened"
        );
        reads += read;
    }
    assert!(
        reads >= waiting.len(),
        "a page of turns per waiting session: {reads}"
    );
    rig.sim.shutdown().await;
}

/// A server slow to open the org stream: the list is read once the stream follows, so a
/// session that starts just after the list was asked for is on the stream, not lost until
/// the next relisting a minute later.
#[tokio::test]
async fn the_list_is_read_once_the_org_stream_follows_so_nothing_in_between_is_lost() {
    let rig = Rig::test().await;
    rig.sim.set_faults(Faults {
        delay_stream_open_ms: 1_000,
        ..Faults::default()
    });
    let listed = rig.sim.create_session(Some("listed"));
    let fleet = live(&rig, Duration::from_secs(60));
    let list_asked = || {
        rig.sim
            .requests()
            .iter()
            .any(|r| r.starts_with("GET /v1/sessions?") || r == "GET /v1/sessions")
    };
    tokio::time::timeout(WAIT, async {
        while !list_asked() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the list read");
    let created = rig.sim.create_session(Some("created just after the list"));
    send(&rig, &created, "hello").await;
    until(&fleet, "both sessions", |m| {
        m.get(&listed).is_some() && m.get(&created).is_some()
    })
    .await;
    rig.sim.shutdown().await;
}

/// A dropped org stream is said on the fleet until it is back: rows may lag meanwhile.
#[tokio::test]
async fn a_dropped_org_stream_is_noted_until_it_is_back() {
    let rig = Rig::start(SimConfig {
        retry_ms: 300,
        ..SimConfig::for_tests()
    })
    .await;
    let first = rig.sim.create_session(Some("first"));
    let fleet = live(&rig, Duration::from_secs(60));
    until(&fleet, "the session listed, no note", |m| {
        m.get(&first).is_some() && m.note().is_none()
    })
    .await;
    // The next event frame is cut in half and the connection closed.
    rig.sim.set_faults(Faults {
        drop_every_n_frames: Some(1),
        ..Faults::default()
    });
    send(&rig, &first, "hello").await;
    until(&fleet, "the note saying the stream dropped", |m| {
        m.note().is_some_and(|n| {
            n.contains("org stream dropped") && n.contains("reconnecting") && n.contains("lag")
        })
    })
    .await;
    rig.sim.set_faults(Faults::default());
    until(&fleet, "the note gone once the stream is back", |m| {
        m.note().is_none()
    })
    .await;
    rig.sim.shutdown().await;
}

/// Whether every decision of `model` has a deadline (6 or more: two blocks of the fleet).
fn every_deadline_known(model: &FleetModel) -> bool {
    use gobare_tui::deadline::{Deadline, WORKSPACE_LIFETIME_MS};
    let items =
        gobare_tui::fleet::inbox::items(model, WORKSPACE_LIFETIME_MS, gobare_api::clock::unix_ms());
    items.len() >= 6
        && items
            .iter()
            .all(|i| !matches!(i.deadline, Deadline::Unknown))
}

/// The sessions of the simulator's fleet waiting on a decision, once at least `at_least` wait
/// (asked before the fleet opens: its org stream, live from then, never sees a workspace
/// start).
async fn waiting_sessions(rig: &Rig, at_least: usize) -> std::collections::BTreeSet<String> {
    let asked = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let page = gobare_api::client::Page::default().with_limit(100);
            let listed = rig.client.list_sessions(&page).await.unwrap();
            let waiting: std::collections::BTreeSet<String> = listed
                .data
                .iter()
                .filter(|s| !s.required_actions.is_empty())
                .map(|s| s.id.clone())
                .collect();
            if waiting.len() >= at_least {
                return waiting;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    asked.unwrap_or_else(|_| panic!("the simulator's fleet never waited on {at_least} decisions"))
}

/// The reads each row gets of its own (turns, usage, artifacts), in the order the
/// simulator received them, from `from` on its record.
fn row_reads(rig: &Rig, from: usize) -> Vec<String> {
    rig.sim.requests()[from..]
        .iter()
        .filter(|r| r.contains("/usage") || r.contains("/artifacts") || r.contains("/turns"))
        .cloned()
        .collect()
}

#[tokio::test]
async fn deadlines_are_known_for_a_fleet_opened_after_its_workspaces_started_and_after_a_restart() {
    let rig = Rig::start(SimConfig::for_tests().with_fleet(12)).await;
    let waiting = waiting_sessions(&rig, 6).await;
    let fleet = live(&rig, Duration::from_secs(60));
    until(&fleet, "every decision's deadline, from usage", |m| {
        m.is_loaded() && every_deadline_known(m)
    })
    .await;
    drop(fleet);
    // The usage route gone: only what the last run kept can say a deadline now.
    rig.sim.set_faults(Faults {
        usage_gone: true,
        ..Faults::default()
    });
    let again = live(&rig, Duration::from_secs(60));
    until(&again, "the restarted fleet's first listing", |m| {
        m.is_loaded() && waiting.iter().all(|id| m.get(id).is_some())
    })
    .await;
    let model = again.model();
    let items = gobare_tui::fleet::inbox::items(
        &model,
        gobare_tui::deadline::WORKSPACE_LIFETIME_MS,
        gobare_api::clock::unix_ms(),
    );
    let unknown: Vec<_> = items
        .iter()
        .filter(|i| matches!(i.deadline, gobare_tui::deadline::Deadline::Unknown))
        .map(|i| (&i.session_id, i.unknown_why().short()))
        .collect();
    assert!(items.len() >= 6, "{items:?}");
    assert!(unknown.is_empty(), "unknown after the restart: {unknown:?}");
}

/// Issue 48.3: on a fleet of 60 opened after its workspaces started, the usage of every
/// session that waits on a decision is the first thing read of any row, ahead of the rows
/// on screen: N waiting, every deadline known after N usage reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_decisions_usage_is_read_before_any_other_row_read() {
    let rig = Rig::start(SimConfig::for_tests().with_fleet(60)).await;
    let waiting = waiting_sessions(&rig, 30).await;
    let from = rig.sim.requests().len();
    let fleet = live(&rig, Duration::from_secs(60));
    // Every row asked for at once, as a tall screen drawn at once asks for the rows in it.
    fleet.want_details(&rig.sim.fleet());
    let known = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let changed = fleet.changed();
            {
                let m = fleet.model();
                let items = gobare_tui::fleet::inbox::items(
                    &m,
                    gobare_tui::deadline::WORKSPACE_LIFETIME_MS,
                    gobare_api::clock::unix_ms(),
                );
                if m.is_loaded()
                    && items.len() >= waiting.len()
                    && items
                        .iter()
                        .all(|i| !matches!(i.deadline, gobare_tui::deadline::Deadline::Unknown))
                {
                    return;
                }
            }
            changed.await;
        }
    })
    .await;
    assert!(known.is_ok(), "the deadlines were never all known");
    let reads = row_reads(&rig, from);
    let n = waiting.len();
    assert!(reads.len() >= n, "{reads:#?}");
    let first: std::collections::BTreeSet<String> = reads[..n]
        .iter()
        .filter(|r| r.contains("/usage"))
        .filter_map(|r| r.split('/').nth(3).map(str::to_string))
        .collect();
    assert_eq!(
        first,
        waiting,
        "the first {n} row reads are the waiting sessions' usage: {:#?}",
        &reads[..n + 5.min(reads.len() - n)]
    );
    rig.sim.shutdown().await;
}

/// Issue 49.7: an older server answers 404 on `…/usage` (no such route); that is a figure
/// missing, not sessions gone: every row stays, in the fleet and what waits in its inbox.
#[tokio::test]
async fn a_404_on_usage_is_a_missing_figure_not_a_session_gone() {
    let rig = Rig::start(SimConfig::for_tests().with_fleet(6)).await;
    rig.sim.set_faults(Faults {
        usage_gone: true,
        ..Faults::default()
    });
    let ids = rig.sim.fleet();
    let fleet = live(&rig, Duration::from_secs(60));
    until(&fleet, "every session listed", |m| {
        ids.iter().all(|id| m.get(id).is_some())
    })
    .await;
    // Wait until the details reader has met the 404s.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !rig
        .sim
        .requests()
        .iter()
        .any(|r| r.starts_with("GET /v1/sessions/") && r.contains("/usage"))
    {
        assert!(tokio::time::Instant::now() < deadline, "no usage read");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let usage_reads = |sim: &gobare_sim::Simulator| {
        sim.requests()
            .iter()
            .filter(|r| r.contains("/usage"))
            .count()
    };
    let before = usage_reads(&rig.sim);
    // A few more reads answered 404, then every row is still there.
    while usage_reads(&rig.sim) < before + 3 {
        assert!(tokio::time::Instant::now() < deadline, "the reads go on");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    {
        let model = fleet.model();
        for id in &ids {
            assert!(model.get(id).is_some(), "{id} is still in the fleet");
        }
    }
    rig.sim.shutdown().await;
}
