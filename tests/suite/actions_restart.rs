//! Coming back: run, quit, start again. The second run resumes the stream from the stored
//! cursor (checked on the simulator's record of stream opens) with no duplicate and no gap,
//! and the draft and history are back.

use crate::support::actions::*;
use gobare_api::stream::{self, StreamHandle, StreamOptions, StreamTarget, StreamUpdate};
use gobare_tui::app::shared::saved_session::{LockOrRecover, SharedSavedSession};

fn open_stream(rig: &Rig, id: &str, from: Option<u64>) -> StreamHandle {
    stream::spawn(StreamOptions {
        api: rig.sim.url(),
        token: gobare_api::auth::Token::new(rig.sim.token()),
        target: StreamTarget::Session(id.to_string()),
        from,
        ..StreamOptions::default()
    })
}

/// Applies persisted events to the memory until `last` was seen; returns the seqs seen.
async fn follow_until(
    stream: &mut StreamHandle,
    saved_session: &SharedSavedSession,
    last: u64,
) -> Vec<u64> {
    let mut seen = Vec::new();
    tokio::time::timeout(WAIT, async {
        while seen.last() != Some(&last) {
            if let Some(StreamUpdate::Frame(frame)) = stream.updates.recv().await
                && let Some(seq) = frame.id
            {
                seen.push(seq);
                saved_session.lock_or_recover().set_cursor(seq);
            }
        }
    })
    .await
    .expect("the stream delivers up to the last event");
    seen
}

#[tokio::test]
async fn a_restart_resumes_from_the_stored_cursor_with_no_duplicate_and_no_gap() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    rig.sim.seed_events(&id, 40);
    let first_last = rig.sim.last_seq();

    // First run: nothing stored, so the whole history replays from 0.
    let first_seen = {
        let saved_session = rig.saved_session(&id);
        assert_eq!(saved_session.lock_or_recover().stream_from(), Some(0));
        let mut stream = open_stream(&rig, &id, saved_session.lock_or_recover().stream_from());
        let seen = follow_until(&mut stream, &saved_session, first_last).await;
        let mut m = saved_session.lock_or_recover();
        m.set_draft("a thought for later");
        m.push_history("earlier message");
        m.flush().unwrap(); // quit
        seen
    };
    // While away, the session moved on.
    rig.sim.seed_events(&id, 25);
    let second_last = rig.sim.last_seq();

    let saved_session = rig.saved_session(&id);
    let stored = saved_session.lock_or_recover().cursor();
    assert_eq!(stored, Some(first_last));
    let mut stream = open_stream(&rig, &id, saved_session.lock_or_recover().stream_from());
    let second_seen = follow_until(&mut stream, &saved_session, second_last).await;
    assert_eq!(rig.sim.stream_opens().last(), Some(&Some(first_last)));

    let all: Vec<u64> = first_seen.iter().chain(&second_seen).copied().collect();
    let expected: Vec<u64> = (1..=second_last).collect();
    assert_eq!(
        all, expected,
        "every event once, in order, across the restart"
    );
    let m = saved_session.lock_or_recover();
    assert_eq!(m.state().draft, "a thought for later");
    assert_eq!(m.history().entries(), ["earlier message"]);
}
