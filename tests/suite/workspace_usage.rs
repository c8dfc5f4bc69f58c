//! Sandbox usage against the simulator: the client's session and crew reads, and the app
//! reading it on start and again when a turn ends (the simulator's request record), the
//! crew's figures for a member of a crew, and a 404 after deletion kept quiet.

use crate::support;
use crate::support::app::{attach, quit, status_line, until};
use crate::support::live::attach_new;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions};
use gobare_api::error::ApiErrorKind;
use gobare_sim::{Faults, SimConfig, Simulator};
use gobare_test_support::pty::keys;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

fn client(sim: &Simulator) -> ApiClient {
    ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap()
}

fn usage_reads(sim: &Simulator, session: &str) -> Vec<String> {
    sim.requests()
        .into_iter()
        .filter(|r| r.starts_with(&format!("GET /v1/sessions/{session}/usage")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_reads_session_and_crew_usage() {
    let sim = Simulator::start(SimConfig::for_tests().with_fleet(6))
        .await
        .unwrap();
    let fleet = sim.fleet();
    let client = client(&sim);

    let own = client.get_usage(&fleet[0], false).await.unwrap();
    assert_eq!(own.scope, "session");
    assert_eq!(own.sessions, 1);
    assert_eq!(own.session_id, fleet[0]);
    assert!(own.chargeable_seconds <= own.sandbox_seconds, "{own:?}");

    // The fleet's first block is a crew: a lead and two members.
    let crew = client.get_usage(&fleet[0], true).await.unwrap();
    assert_eq!(crew.scope, "tree");
    assert_eq!(crew.sessions, 3, "{crew:?}");
    assert!(crew.sandbox_seconds >= own.sandbox_seconds, "{crew:?}");
    let lead = &fleet[0];
    assert_eq!(
        usage_reads(&sim, lead),
        vec![
            format!("GET /v1/sessions/{lead}/usage"),
            format!("GET /v1/sessions/{lead}/usage?root={lead}"),
        ]
    );

    let gone = client
        .get_usage("no-such-session", false)
        .await
        .unwrap_err();
    assert_eq!(gone.kind, ApiErrorKind::NotFound, "{gone:?}");
    sim.shutdown().await;
}

#[test]
fn usage_is_read_on_start_and_again_when_a_turn_ends() {
    let sim = support::sim::start(SimConfig {
        speed: 10.0,
        ..SimConfig::for_tests()
    });
    let session = sim.sim.create_session(Some("usage"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for_text("usage ", TIMEOUT);
    // The pane shows the session's figures as soon as they are read; the crew's read follows.
    let at_start = until(
        "the crew's usage read on start",
        TIMEOUT,
        || {
            let reads = usage_reads(&sim.sim, &session);
            (reads.len() >= 2).then_some(reads)
        },
        || format!("{:?}", usage_reads(&sim.sim, &session)),
    );
    assert_eq!(
        at_start,
        vec![
            format!("GET /v1/sessions/{session}/usage"),
            format!("GET /v1/sessions/{session}/usage?root={session}"),
        ],
        "one read on start: the session's, then its (absent) crew's"
    );
    assert!(!pty.screen_text().contains("crew ("), "alone: no crew line");

    pty.send_keys("fix the export please");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("completed", TIMEOUT);
    until(
        "usage read again after the turn ended",
        TIMEOUT,
        || (usage_reads(&sim.sim, &session).len() > at_start.len()).then_some(()),
        || format!("{:#?}", sim.sim.requests()),
    );
    assert!(
        !pty.with_screen(status_line).contains("could not read"),
        "{}",
        pty.screen_text()
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

#[test]
fn a_crew_member_shows_its_crew_usage() {
    let sim = support::sim::start(SimConfig::for_tests().with_fleet(6));
    let fleet = sim.sim.fleet();
    let (lead, member) = (&fleet[0], &fleet[1]);
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(member, &home, &sim.sim);
    pty.wait_for_text("crew (3 sessions)", TIMEOUT);
    assert!(
        sim.sim
            .requests()
            .contains(&format!("GET /v1/sessions/{lead}/usage?root={lead}")),
        "the crew is read from the lead: {:#?}",
        sim.sim.requests()
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// A session deleted under the app answers `404` to the usage read: that is no error to
/// report. Two turns run after the read so its answer has been handled; nothing the app ever
/// wrote to the terminal says it could not read the usage, and the pane shows none.
#[test]
fn a_usage_404_after_deletion_is_quiet() {
    let sim = support::sim::start(SimConfig {
        speed: 10.0,
        ..SimConfig::for_tests()
    });
    sim.sim.set_faults(Faults {
        usage_gone: true,
        ..Faults::default()
    });
    let (session, _home, mut pty) = attach_new(&sim.sim, "gone", TIMEOUT);
    until(
        "usage read on start",
        TIMEOUT,
        || (!usage_reads(&sim.sim, &session).is_empty()).then_some(()),
        || format!("{:#?}", sim.sim.requests()),
    );
    for (n, text) in [(1, "first #quick"), (2, "second #quick")] {
        pty.send_keys(text);
        pty.send_keys(keys::ENTER);
        pty.wait_for(
            "the turn to complete",
            |s| s.contents().matches("✓ completed").count() >= n,
            TIMEOUT,
        );
    }
    assert!(
        usage_reads(&sim.sim, &session).len() >= 2,
        "read again after a turn ended: {:#?}",
        sim.sim.requests()
    );
    let written = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    assert!(!written.contains("could not read"), "{}", pty.screen_text());
    assert!(!pty.screen_text().contains("sandbox ·"), "no usage shown");
    assert!(quit(&mut pty, TIMEOUT).success());
}
