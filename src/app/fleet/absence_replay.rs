//! After a restart, the fleet's digest of the absence from the org stream replayed from the
//! cursor the fleet kept when it was last seen: one stream, read until it reaches the
//! moment the fleet opened (what follows the fleet sees live), then the latest turns of a
//! few sessions that failed, for their reasons. A handful of requests whatever the
//! fleet's size; nothing per session that merely moved. A replay cut short (truncated, or
//! the stream refused) tells nothing: the digest is then told from the rows
//! ([`super::absence_glance`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::{EventPayload, SessionStatus};
use gobare_api::stream::{self, ConnectionState, StreamOptions, StreamUpdate};
use tokio::time::Instant;

use crate::away::fleet_record::AbsenceRecord;
use crate::fleet::model::FleetModel;

/// A replay this quiet has caught up (an organization with nothing newer says nothing).
const QUIET: Duration = Duration::from_secs(2);
/// The longest a replay is read: past it the digest says what it has.
const LONGEST: Duration = Duration::from_secs(60);
/// Failed sessions whose latest turns are read for the reason.
const FAILED_READ: usize = 4;
/// Turns read of each: the failed one is among the newest.
const TURNS_READ: u32 = 5;

/// Where an absence's replay starts and ends.
pub(crate) struct Replay {
    pub(crate) since_ms: i64,
    pub(crate) cursor: u64,
    /// When the fleet opened (Unix ms): what is newer it sees live.
    pub(crate) until_ms: i64,
    /// Where the sessions opened meanwhile kept how far they were watched.
    pub(crate) visits: Option<crate::store::StateStore>,
}

/// The absence since `replay.since_ms`, from the org stream after `replay.cursor`; `None`
/// when the replay was cut short (what it missed would be told as if nothing happened).
pub(crate) async fn replay(
    client: ApiClient,
    mut options: StreamOptions,
    model: Arc<Mutex<FleetModel>>,
    replay: Replay,
) -> Option<AbsenceRecord> {
    let mut record = AbsenceRecord::new(replay.since_ms).with_visits(replay.visits.clone());
    options.from = Some(replay.cursor);
    options.profile = stream::StreamProfile::EVENTS_ONLY;
    let mut handle = stream::spawn(options);
    let deadline = Instant::now() + LONGEST;
    // Quiet counts once the stream is open: a slow connect is not a caught-up replay.
    let mut open = false;
    loop {
        let wait = if open {
            (Instant::now() + QUIET).min(deadline)
        } else {
            deadline
        };
        let Ok(Some(update)) = tokio::time::timeout_at(wait, handle.updates.recv()).await else {
            break;
        };
        match update {
            StreamUpdate::Frame(frame) => {
                let Ok(event) = &frame.event else { continue };
                if let EventPayload::ReplayTruncated(_) = &event.payload {
                    tracing::warn!("the absence's replay was cut short: told from the rows");
                    return None;
                }
                if event.created_at.is_some_and(|at| at >= replay.until_ms) {
                    break;
                }
                record.feed(event);
            }
            StreamUpdate::State(ConnectionState::Open { .. } | ConnectionState::Live) => {
                open = true;
            }
            StreamUpdate::State(ConnectionState::Failed { .. }) => {
                tracing::warn!("the absence's replay was refused: told from the rows");
                return None;
            }
            _ => {}
        }
    }
    drop(handle);
    // Why the sessions that failed failed: their newest turns, a few sessions at most.
    let failed: Vec<String> = {
        let model = model.lock().unwrap_or_else(|p| p.into_inner());
        record
            .ended_in(|id| {
                model
                    .get(id)
                    .is_some_and(|r| r.status == SessionStatus::Failed)
            })
            .into_iter()
            .take(FAILED_READ)
            .collect()
    };
    for id in failed {
        let page = Page::ordered(Order::Desc).with_limit(TURNS_READ);
        match client.list_turns(&id, &page).await {
            Ok(turns) => record.turns_read(&id, &turns.data),
            Err(e) => tracing::warn!(error = %e, "the digest could not read a failed turn"),
        }
    }
    Some(record)
}

#[cfg(test)]
mod tests {
    use super::super::test_sim::{requests, until};
    use super::*;
    use crate::away::digest::Digest;
    use crate::away::fleet_lines::fleet_lines;
    use gobare_api::auth::Token;
    use gobare_api::client::{ClientOptions, SessionFilter};
    use gobare_api::model::TurnStatus;
    use gobare_api::stream::StreamTarget;
    use gobare_sim::{SimConfig, Simulator};

    /// A replay the server cuts (`gobare.replay_truncated`: more was owed than it replays
    /// on one connect) tells nothing, rather than an absence with a hole in it: the
    /// fleet then tells it from its rows (`FleetMsg::AwayCut`).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_replay_cut_short_tells_nothing() {
        let sim = Simulator::start(SimConfig {
            replay_cap: 20,
            ..SimConfig::for_tests()
        })
        .await
        .unwrap();
        let client =
            ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
        let (cursor, since_ms) = (sim.last_seq(), gobare_api::clock::unix_ms());
        let busy = sim.create_session(Some("busy"));
        for i in 0..30 {
            sim.emit(
                &busy,
                gobare_api::model::EventPayload::UserMessage(gobare_api::model::Text {
                    text: format!("message {i}"),
                }),
            );
        }
        until("30 events", async || sim.last_seq(), |s| *s >= cursor + 30).await;
        let options = StreamOptions {
            api: sim.url(),
            token: Token::new(sim.token()),
            target: StreamTarget::Org { root: None },
            ..StreamOptions::default()
        };
        let replayed = replay(
            client,
            options,
            Arc::new(Mutex::new(FleetModel::new())),
            // No end but the cut: only the truncation can end this replay early.
            Replay {
                since_ms,
                cursor,
                until_ms: i64::MAX,
                visits: None,
            },
        )
        .await;
        assert!(replayed.is_none(), "a cut replay told as whole");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sixty_session_absence_is_told_in_a_handful_of_requests_waits_first() {
        let sim = Simulator::start(SimConfig {
            fleet_activity: 50,
            ..SimConfig::for_tests().with_fleet(60)
        })
        .await
        .unwrap();
        let client =
            ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
        // The fleet was last seen here: its cursor and the time.
        let (cursor, since_ms) = (sim.last_seq(), gobare_api::clock::unix_ms());
        // Away: a turn fails in one session, another asks for approval, the fleet's
        // activity goes on.
        let failing = sim.create_session(Some("weekly report"));
        sim.send_message(&failing, "weekly run #error");
        let asking = sim.create_session(Some("restart the worker"));
        sim.send_message(&asking, "restart the worker #approval");
        let newest = Page::ordered(Order::Desc).with_limit(1);
        until(
            "the failed turn",
            async || client.list_turns(&failing, &newest).await.ok(),
            |t| {
                t.as_ref()
                    .and_then(|l| l.data.first())
                    .is_some_and(|t| t.status == TurnStatus::Failed)
            },
        )
        .await;
        until(
            "the approval asked",
            async || client.get_session(&asking).await.ok(),
            |s| {
                s.as_ref()
                    .is_some_and(|s| s.status == SessionStatus::RequiresAction)
            },
        )
        .await;
        until(
            "the activity's 300 events",
            async || sim.last_seq(),
            |seq| *seq >= cursor + 300,
        )
        .await;
        // The fleet opened again: its own listing (read whether a digest is due or not).
        let listed = crate::sessions::list_all(&client, &SessionFilter::default())
            .await
            .unwrap();
        let mut model = FleetModel::new();
        model.apply_full_list(&listed.items);
        let model = Arc::new(Mutex::new(model));

        let before = requests(&sim);
        let options = StreamOptions {
            api: sim.url(),
            token: Token::new(sim.token()),
            target: StreamTarget::Org { root: None },
            ..StreamOptions::default()
        };
        let until_ms = gobare_api::clock::unix_ms();
        let mut record = replay(
            client.clone(),
            options,
            model.clone(),
            Replay {
                since_ms,
                cursor,
                until_ms,
                visits: None,
            },
        )
        .await
        .expect("the replay was not cut");
        let spent = requests(&sim) - before;
        assert!(
            spent <= 5,
            "the digest of 60 sessions took {spent} requests: {:?}",
            sim.requests().iter().rev().take(spent).collect::<Vec<_>>()
        );

        let digests =
            crate::fleet::absence_digest::digests(&mut record, &model.lock().unwrap(), until_ms);
        let shown: Vec<Digest> = digests.into_iter().filter(|d| d.has_news()).collect();
        let lines: Vec<String> = fleet_lines(&shown).into_iter().map(|(_, l)| l).collect();
        // What waits first (one line a decision), the one asked while away among them;
        // then what failed, with its reason; then the churn of every session in a line.
        assert!(lines[0].starts_with("Waiting on you: "), "{lines:#?}");
        let failed_at = lines
            .iter()
            .position(|l| l.starts_with("Failed: "))
            .unwrap_or_else(|| panic!("{lines:#?}"));
        let waits = &lines[1..failed_at];
        assert!(waits.iter().all(|l| l.starts_with("  ")), "{lines:#?}");
        assert!(
            waits
                .iter()
                .any(|l| l.starts_with("  restart the worker: approval")),
            "{lines:#?}"
        );
        let failures = &lines[failed_at + 1..lines.len() - 1];
        assert!(failures.iter().all(|l| l.starts_with("  ")), "{lines:#?}");
        assert!(
            failures
                .iter()
                .any(|l| l.starts_with("  weekly report: ") && !l.contains("no reason")),
            "the failure's reason read: {lines:#?}"
        );
        let churn = lines.last().unwrap();
        let moved: usize = churn.split(' ').next().unwrap().parse().unwrap();
        assert!(moved > 10 && churn.contains(" sessions: "), "{churn}");
    }
}
