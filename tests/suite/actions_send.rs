//! The send executor against the simulator over real HTTP: messages, the queue, steer,
//! cancel, retries with one key, drafts that survive, and a pending send resumed on restart.

use crate::support::actions::*;
use gobare_api::model::{ErrorCode, Input, TurnStatus};
use gobare_tui::app::shared::saved_session::LockOrRecover;
use gobare_tui::app::shared::sender::Sender;
use gobare_tui::session::Severity;
use std::sync::Arc;

#[tokio::test]
async fn a_message_is_sent_once_recorded_in_history_and_its_pending_record_cleared() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let saved_session = rig.saved_session(&id);
    let (mut sender, mut events) = Sender::new(
        rig.client.clone(),
        &id,
        Some(saved_session.clone()),
        fast_policy(),
    );
    sender.send(message("summarise the repo"));
    let report = settled(&mut events).await;
    assert!(report.accepted(), "{:?}", report.outcome);
    assert_eq!(report.attempts, 1);
    assert_eq!(report.outcome.severity, Severity::Quiet);
    assert!(!report.outcome.keep_draft);
    assert_eq!(rig.sim.messages_with_key(&report.key), 1);
    let on_disk = rig.store().load_session(&id);
    assert_eq!(on_disk.pending_send, None);
    assert_eq!(on_disk.history.entries(), ["summarise the repo"]);
    rig.until_session(&id, "the turn to run", |s| s.status.as_str() != "idle")
        .await;
}

#[tokio::test]
async fn messages_queue_behind_a_running_turn_and_the_sixth_is_refused_keeping_the_draft() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let saved_session = rig.saved_session(&id);
    let (mut sender, mut events) = Sender::new(
        rig.client.clone(),
        &id,
        Some(saved_session.clone()),
        fast_policy(),
    );
    // The approval scenario parks the turn until answered: a turn that stays running.
    sender.send(message("restart it #approval"));
    assert!(settled(&mut events).await.accepted());
    rig.until_required(&id).await;
    for n in 1..=5 {
        sender.send(message(&format!("later {n}")));
        let report = settled(&mut events).await;
        assert_eq!(report.outcome.queued_at, Some(n), "{:?}", report.outcome);
        assert!(report.outcome.text.contains(&format!("queued #{n}")));
    }
    saved_session.lock_or_recover().set_draft("one too many");
    sender.send(message("one too many"));
    let refused = settled(&mut events).await;
    let failure = refused.result.as_ref().unwrap_err();
    assert_eq!(failure.code, Some(ErrorCode::QueueFull));
    assert_eq!(
        refused.attempts, 1,
        "queue_full is never retried on our own"
    );
    assert!(refused.outcome.keep_draft);
    assert!(
        refused.outcome.text.contains("draft stays"),
        "{}",
        refused.outcome.text
    );
    assert_eq!(rig.sim.messages_with_key(&refused.key), 0);
    assert_eq!(
        saved_session.lock_or_recover().state().draft,
        "one too many"
    );
    assert_eq!(rig.store().load_session(&id).pending_send, None);
}

#[tokio::test]
async fn steer_reaches_a_running_turn() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let (mut sender, mut events) = Sender::new(rig.client.clone(), &id, None, fast_policy());
    sender.send(message("go #approval"));
    assert!(settled(&mut events).await.accepted());
    rig.until_required(&id).await;
    sender.send(steer("use the staging host instead"));
    let report = settled(&mut events).await;
    assert!(report.accepted(), "{:?}", report.outcome);
    assert!(report.outcome.text.contains("steering"));
}

#[tokio::test]
async fn steer_with_nothing_running_is_explained_and_never_becomes_a_message() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let (mut sender, mut events) = Sender::new(rig.client.clone(), &id, None, fast_policy());
    sender.send(steer("go left"));
    let report = settled(&mut events).await;
    let failure = report.result.as_ref().unwrap_err();
    assert_eq!(failure.status, Some(409));
    assert_eq!(report.attempts, 1);
    assert!(report.outcome.keep_draft);
    assert!(report.outcome.offer_send_as_message);
    assert!(report.outcome.text.contains("nothing is running"));
    assert_eq!(rig.sim.messages_with_key(&report.key), 0);
    let turns = rig
        .client
        .list_turns(
            &id,
            &gobare_api::client::Page::ordered(gobare_api::client::Order::Desc),
        )
        .await
        .unwrap();
    assert!(turns.data.is_empty(), "no turn was started");
}

#[tokio::test]
async fn cancel_settles_the_running_turn_as_cancelled() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let (mut sender, mut events) = Sender::new(rig.client.clone(), &id, None, fast_policy());
    sender.send(message("go #approval"));
    assert!(settled(&mut events).await.accepted());
    let action = rig.until_required(&id).await;
    sender.send(Input::Cancel {});
    let report = settled(&mut events).await;
    assert!(report.accepted());
    assert!(report.outcome.text.contains("finished work"));
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let turn = rig.client.get_turn(&id, &action.turn_id).await.unwrap();
        if turn.status == TurnStatus::Cancelled {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "turn is {:?}",
            turn.status
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_send_whose_answer_was_lost_is_retried_with_its_key_and_delivered_once() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let flaky = Arc::new(Flaky::new(&rig.sim, Fault::AnswerLost, 1));
    let (mut sender, mut events) = Sender::new(flaky.clone(), &id, None, fast_policy());
    sender.send(message("only once please"));
    let report = settled(&mut events).await;
    assert!(report.accepted(), "{:?}", report.outcome);
    assert_eq!(report.attempts, 2);
    assert_eq!(rig.sim.messages_with_key(&report.key), 1);
}

#[tokio::test]
async fn a_send_through_an_outage_is_delivered_once_when_the_network_returns() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let flaky = Arc::new(Flaky::new(&rig.sim, Fault::Unreachable, 3));
    let (mut sender, mut events) = Sender::new(flaky.clone(), &id, None, fast_policy());
    sender.send(message("after the outage"));
    let report = settled(&mut events).await;
    assert!(report.accepted());
    assert_eq!(report.attempts, 4);
    assert_eq!(rig.sim.messages_with_key(&report.key), 1);
}

#[tokio::test]
async fn a_failed_send_keeps_the_draft_and_the_pending_key_then_a_restart_delivers_it_once() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let key = {
        let saved_session = rig.saved_session(&id);
        saved_session.lock_or_recover().set_draft("do not lose me");
        // Every attempt reaches the server, every answer is lost.
        let flaky = Arc::new(Flaky::new(&rig.sim, Fault::AnswerLost, u32::MAX));
        let (mut sender, mut events) =
            Sender::new(flaky, &id, Some(saved_session.clone()), fast_policy());
        sender.send(message("do not lose me"));
        let report = settled(&mut events).await;
        assert!(!report.accepted());
        assert!(report.unanswered);
        assert!(report.outcome.keep_draft);
        assert_eq!(report.outcome.severity, Severity::Error);
        saved_session.lock_or_recover().flush().unwrap();
        report.key
    };
    assert_eq!(
        rig.sim.messages_with_key(&key),
        1,
        "the server acted on the first attempt only"
    );
    // "Restart": a fresh memory and sender over the real client.
    let saved_session = rig.saved_session(&id);
    let pending = saved_session
        .lock_or_recover()
        .pending_send()
        .cloned()
        .expect("kept on disk");
    assert_eq!(pending.idempotency_key, key);
    assert_eq!(
        saved_session.lock_or_recover().state().draft,
        "do not lose me"
    );
    let (mut sender, mut events) = Sender::new(
        rig.client.clone(),
        &id,
        Some(saved_session.clone()),
        fast_policy(),
    );
    sender.resume_pending(&pending).unwrap();
    let report = settled(&mut events).await;
    assert!(report.accepted() && report.recovered);
    assert_eq!(report.key, key);
    assert_eq!(
        rig.sim.messages_with_key(&key),
        1,
        "replayed, not sent twice"
    );
    assert_eq!(rig.store().load_session(&id).pending_send, None);
}

#[tokio::test]
async fn a_pending_send_that_never_left_is_sent_once_on_restart() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let key = {
        let saved_session = rig.saved_session(&id);
        let flaky = Arc::new(Flaky::new(&rig.sim, Fault::Unreachable, u32::MAX));
        let (mut sender, mut events) =
            Sender::new(flaky, &id, Some(saved_session.clone()), fast_policy());
        sender.send(message("written while offline"));
        let report = settled(&mut events).await;
        assert!(report.unanswered && report.outcome.keep_draft);
        report.key
    };
    assert_eq!(rig.sim.messages_with_key(&key), 0);
    let saved_session = rig.saved_session(&id);
    let pending = saved_session
        .lock_or_recover()
        .pending_send()
        .cloned()
        .unwrap();
    let (mut sender, mut events) =
        Sender::new(rig.client.clone(), &id, Some(saved_session), fast_policy());
    sender.resume_pending(&pending).unwrap();
    assert!(settled(&mut events).await.accepted());
    assert_eq!(rig.sim.messages_with_key(&key), 1);
}

#[tokio::test]
async fn sending_the_same_text_again_after_no_answer_reuses_the_key() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let flaky = Arc::new(Flaky::new(&rig.sim, Fault::AnswerLost, 4));
    let (mut sender, mut events) = Sender::new(flaky, &id, None, fast_policy());
    sender.send(message("press enter twice"));
    let first = settled(&mut events).await;
    assert!(first.unanswered);
    sender.note_settled(&first);
    sender.send(message("press enter twice"));
    let second = settled(&mut events).await;
    assert!(second.accepted());
    assert_eq!(second.key, first.key);
    assert_eq!(rig.sim.messages_with_key(&first.key), 1);
}
