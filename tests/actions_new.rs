//! `gobare-tui new` against the simulator: subscribe (no cursor) before sending, then the
//! first message under its own key is the first event the stream shows (§11.1).

mod actions_support;

use actions_support::*;
use gobare_api::model::EventPayload;
use gobare_api::stream::{StreamOptions, StreamTarget, StreamUpdate};
use gobare_tui::app::memory::SessionMemory;
use gobare_tui::cli::NewArgs;
use gobare_tui::commands::new::open_new_session;

#[tokio::test]
async fn new_subscribes_live_before_sending_and_the_first_message_is_the_first_event() {
    let rig = Rig::test().await;
    let store = rig.store();
    let open_memory = |id: &str| SessionMemory::open(store.clone(), id).shared();
    let api = rig.sim.url();
    let token = gobare_api::auth::Token::new(rig.sim.token());
    let args = NewArgs {
        title: Some("fix the flaky test".into()),
        message: Some("hello there".into()),
        ..NewArgs::default()
    };
    let mut new = open_new_session(
        rig.client.clone(),
        &args,
        |id| {
            Ok(StreamOptions {
                api: api.clone(),
                token: token.clone(),
                target: StreamTarget::Session(id.to_string()),
                ..StreamOptions::default()
            })
        },
        Some(&open_memory),
    )
    .await
    .unwrap();
    assert_eq!(new.session.title.as_deref(), Some("fix the flaky test"));
    assert_eq!(rig.sim.stream_opens(), vec![None], "opened live, no cursor");
    let report = new.first_send.take().expect("the first message was sent");
    assert!(report.accepted(), "{:?}", report.outcome);
    assert_eq!(rig.sim.messages_with_key(&report.key), 1);
    let first = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(StreamUpdate::Frame(frame)) = new.stream.updates.recv().await
                && frame.id.is_some()
            {
                return frame.event.unwrap();
            }
        }
    })
    .await
    .expect("a persisted event arrives");
    match first.payload {
        EventPayload::UserMessage(t) => assert_eq!(t.text, "hello there"),
        other => panic!("first event was {other:?}"),
    }
    let on_disk = store.load_session(&new.session.id);
    assert_eq!(on_disk.history, vec!["hello there"]);
    assert_eq!(on_disk.pending_send, None);
}

#[tokio::test]
async fn new_without_a_message_opens_an_idle_session() {
    let rig = Rig::test().await;
    let api = rig.sim.url();
    let token = gobare_api::auth::Token::new(rig.sim.token());
    let new = open_new_session(
        rig.client.clone(),
        &NewArgs::default(),
        |id| {
            Ok(StreamOptions {
                api: api.clone(),
                token: token.clone(),
                target: StreamTarget::Session(id.to_string()),
                ..StreamOptions::default()
            })
        },
        None,
    )
    .await
    .unwrap();
    assert!(new.first_send.is_none());
    assert_eq!(rig.session(&new.session.id).await.status.as_str(), "idle");
}

#[tokio::test]
async fn the_picker_pages_sessions_newest_first() {
    use gobare_tui::app::sessions::SessionPager;
    let rig = Rig::test().await;
    let mut ids: Vec<String> = (0..3)
        .map(|n| rig.sim.create_session(Some(&format!("session {n}"))))
        .collect();
    let mut pager = SessionPager::new(2);
    let (first, more) = pager.next_page(&rig.client).await.unwrap();
    assert!(more);
    let (second, more) = pager.next_page(&rig.client).await.unwrap();
    assert!(!more && pager.exhausted());
    let listed: Vec<_> = first.iter().chain(&second).collect();
    let created: Vec<i64> = listed.iter().map(|s| s.created_at).collect();
    assert!(
        created.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {created:?}"
    );
    let mut listed: Vec<String> = listed.iter().map(|s| s.id.clone()).collect();
    listed.sort();
    ids.sort();
    assert_eq!(listed, ids, "every session once across the pages");
}
