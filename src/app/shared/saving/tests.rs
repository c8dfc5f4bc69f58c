use super::*;
use crate::app::shared::saved_session::LockOrRecover;
use crate::app::shared::saved_session::SharedSavedSession;
use crate::store::StateStore;
use tokio::sync::mpsc;

/// What a stretch of the loop did: when it started writes, and what it told the user.
#[derive(Default)]
struct Record {
    attempts: Vec<Instant>,
    news: Vec<SaveNews>,
}

/// The app loop's part in saving, on tokio's clock: an edit every 10 ms while `typing`,
/// a write started whenever the saver says it is due, its report handed back.
async fn drive(
    saver: &mut StateSaver,
    saved_session: &SharedSavedSession,
    draft: &mut String,
    typing: bool,
    for_how_long: Duration,
    record: &mut Record,
) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let until = tokio::time::Instant::now() + for_how_long;
    let mut in_flight = false;
    loop {
        let now = tokio::time::Instant::now();
        if now >= until && !in_flight {
            return;
        }
        let now = now.into_std();
        let wake = {
            let mut m = saved_session.lock_or_recover();
            if typing {
                draft.push('x');
                m.note_draft_edited();
            }
            if saver.is_due(now, m.is_dirty()) {
                m.sync_draft(|| draft.clone());
                if let Some(job) = m.save_job() {
                    record.attempts.push(now);
                    in_flight = true;
                    let tx = tx.clone();
                    saver.start(now, job, move |done| {
                        let _ = tx.send(done);
                    });
                }
            }
            let mut wake = until.into_std();
            if let Some(at) = saver.due_at(now, m.is_dirty()) {
                wake = wake.min(at);
            }
            if typing {
                wake = wake.min(now + Duration::from_millis(10));
            }
            wake
        };
        tokio::select! {
            Some(done) = rx.recv() => {
                in_flight = false;
                record.news.extend(saver.finished(done, &mut saved_session.lock_or_recover()));
            }
            () = tokio::time::sleep_until(wake.into()) => {}
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_refusing_disk_is_tried_at_most_once_a_second_and_gets_the_draft_once_it_recovers() {
    let home = tempfile::tempdir().unwrap();
    // A file where the state directory should be: every write fails.
    let state_dir = home.path().join("state");
    std::fs::write(&state_dir, "not a directory").unwrap();
    let api = url::Url::parse("http://127.0.0.1:4780").unwrap();
    let store = StateStore::at(&state_dir, &api);
    let saved_session = SavedSession::open(store.clone(), "s1").shared();
    let mut saver = StateSaver::default();
    let mut record = Record::default();
    let mut draft = String::from("a long thought\nover two lines");

    // Half a minute of typing, an edit every 10 ms (3,000 edits).
    drive(
        &mut saver,
        &saved_session,
        &mut draft,
        true,
        Duration::from_secs(30),
        &mut record,
    )
    .await;
    assert_eq!(
        store.save_attempts(),
        record.attempts.len() as u64,
        "one store write per attempt"
    );
    for pair in record.attempts.windows(2) {
        assert!(
            pair[1] - pair[0] >= SAVE_INTERVAL,
            "attempts {:?} apart",
            pair[1] - pair[0]
        );
    }
    // Backing off 1, 2, 4, 4, … s: 0, 1, 3, 7, 11, 15, 19, 23, 27.
    assert!(
        (5..=10).contains(&record.attempts.len()),
        "{} attempts in 30 s",
        record.attempts.len()
    );
    assert_eq!(
        record.news.len(),
        1,
        "one notice per episode: {:?}",
        record.news
    );
    let SaveNews::Failing(line) = &record.news[0] else {
        panic!("{:?}", record.news);
    };
    assert!(
        line.starts_with("cannot save state to ") && line.ends_with("your draft is kept in memory"),
        "{line}"
    );
    assert!(line.contains(&*state_dir.to_string_lossy()), "{line}");
    // Kept in memory as of the last attempt (the box has the rest).
    let kept = saved_session.lock_or_recover().state().draft.clone();
    assert!(
        kept.len() > 2_500 && draft.starts_with(&kept),
        "{} bytes kept",
        kept.len()
    );
    assert!(saved_session.lock_or_recover().is_dirty());

    // The disk recovers: the next attempt (within RETRY_MAX) writes the draft, and then
    // nothing more is written while nothing changes.
    std::fs::remove_file(&state_dir).unwrap();
    let before = record.attempts.len();
    drive(
        &mut saver,
        &saved_session,
        &mut draft,
        false,
        RETRY_MAX,
        &mut record,
    )
    .await;
    assert_eq!(store.load_session("s1").draft, draft);
    assert_eq!(record.news.last(), Some(&SaveNews::Recovered));
    assert_eq!(record.attempts.len(), before + 1);
    assert!(!saved_session.lock_or_recover().is_dirty());
    drive(
        &mut saver,
        &saved_session,
        &mut draft,
        false,
        Duration::from_secs(60),
        &mut record,
    )
    .await;
    assert_eq!(
        record.attempts.len(),
        before + 1,
        "nothing changed, nothing written"
    );
    assert_eq!(store.save_attempts(), record.attempts.len() as u64);
}

#[tokio::test(start_paused = true)]
async fn a_healthy_disk_gets_at_most_one_write_a_second_while_typing() {
    let home = tempfile::tempdir().unwrap();
    let api = url::Url::parse("http://127.0.0.1:4780").unwrap();
    let store = StateStore::open(home.path(), &api).unwrap();
    let saved_session = SavedSession::open(store.clone(), "s1").shared();
    let mut saver = StateSaver::default();
    let mut record = Record::default();
    let mut draft = String::new();
    drive(
        &mut saver,
        &saved_session,
        &mut draft,
        true,
        Duration::from_secs(10),
        &mut record,
    )
    .await;
    // 1,000 edits, one write a second.
    assert!(
        (10..=11).contains(&record.attempts.len()),
        "{} writes in 10 s",
        record.attempts.len()
    );
    assert!(record.news.is_empty(), "{:?}", record.news);
    // The last edits follow within a second of the typing stopping.
    drive(
        &mut saver,
        &saved_session,
        &mut draft,
        false,
        SAVE_INTERVAL,
        &mut record,
    )
    .await;
    assert_eq!(store.load_session("s1").draft, draft);
}
