//! The budgets the app shows, as the simulator reports and enforces them: every answer's
//! `x-ratelimit-*` headers reach the client's budget (per bucket), and the organization's
//! session slots run out with `project_limit_exceeded`, which waiting does not cure.

use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, IdempotencyKey};
use gobare_api::error::ApiErrorKind;
use gobare_api::model::CreateSession;
use gobare_sim::{SimConfig, Simulator};

#[tokio::test]
async fn the_client_keeps_the_request_budget_and_the_slots_run_out() {
    let config = SimConfig {
        max_sessions: 2,
        // The reference's buckets, which the tests' simulator otherwise makes huge.
        rate_limits: gobare_sim::RateLimits::default(),
        ..SimConfig::for_tests()
    };
    let sim = Simulator::start(config).await.unwrap();
    let client = ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
    assert!(client.rate_budget().all().is_empty(), "nothing heard yet");
    let created = client
        .create_session(&CreateSession::default(), &IdempotencyKey::new())
        .await
        .unwrap();
    let sessions = client
        .rate_budget()
        .bucket("sessions")
        .expect("the sessions bucket");
    assert_eq!(sessions.limit, 10);
    assert!(sessions.remaining < 10, "{sessions:?}");
    client.get_session(&created.id).await.unwrap();
    let general = client
        .rate_budget()
        .bucket("general")
        .expect("the general bucket");
    assert_eq!(general.limit, 120);
    assert!(general.remaining < 120);
    // The clones share what they heard.
    assert_eq!(
        client.clone().rate_budget().bucket("general"),
        Some(general)
    );

    client
        .create_session(&CreateSession::default(), &IdempotencyKey::new())
        .await
        .unwrap();
    let refused = client
        .create_session(&CreateSession::default(), &IdempotencyKey::new())
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ApiErrorKind::ProjectLimit, "{refused:?}");
}
