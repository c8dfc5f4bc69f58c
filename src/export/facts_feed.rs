//! The session's turns and artifacts read beside its history, for the Markdown export:
//! pages are taken as they come; a turn that closes before its facts have arrived has its
//! closing line held while the writer goes on, and the writer waits only past what it
//! may hold or at the history's end (the history's queue then fills and its socket waits).
//!
//! A turn the lists lack once read whole (created after the read passed it) and a turn
//! the lists read still working that the history then ends are read alone, once each.

use super::turn_facts::{FastSet, TurnFact, TurnFacts};
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::error::ApiError;
use gobare_api::model::{Artifact, Turn};
use gobare_api::paging::{self, Cut, PageLimits};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Turns per list page (the most the API gives, §3).
const PAGE: u32 = 100;
/// The most of a session's turn list read (as for its artifacts, [`crate::downloads`]).
const LIMITS: PageLimits = PageLimits {
    pages: 1_000,
    items: 100_000,
};

/// What the lists' reader hands over.
enum Listing {
    /// A page's turns, their facts made where they were read.
    Turns(Vec<(String, TurnFact)>),
    /// The turn list's end: `Ok(None)` read whole, `Ok(Some)` cut, `Err` failed.
    TurnsEnded(Result<Option<Cut>, ApiError>),
    Artifacts(Result<Vec<Artifact>, ApiError>),
}

/// How far one list has been read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    Reading,
    /// To its end: a turn it lacks was created after the read passed it.
    Whole,
    /// Cut or failed: what it lacks stays unknown.
    Partial,
}

/// What one event needs known before it is written, owned: it is held while the feed fills
/// the writer's facts. Built only when the borrowed check (`markdown::Wants`) finds something
/// missing: one owned type for both cost +0.7 % instructions per export (docs/perf.md).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Wanted {
    /// Turns whose outcome the event may write.
    pub(crate) turns: Vec<String>,
    /// A turn the event says ended: read again if the lists had it still working.
    pub(crate) ended: Option<String>,
    /// The artifact list (a closing line names what its turn published).
    pub(crate) artifacts: bool,
}

impl Wanted {
    pub(crate) fn is_empty(&self) -> bool {
        self.turns.is_empty() && self.ended.is_none() && !self.artifacts
    }
}

/// The lists as they are read, for one export.
pub struct TurnFactsFeed {
    listings: Option<mpsc::UnboundedReceiver<Listing>>,
    turns: Progress,
    artifacts: Progress,
    /// For a turn read alone; `None` for facts given whole.
    client: Option<(ApiClient, String)>,
    /// Turns read alone because the lists lacked them, and because their history ended
    /// them while the lists had them working: each at most once for each reason.
    read_lacking: FastSet<String>,
    read_ended: FastSet<String>,
    reader: Option<JoinHandle<()>>,
}

impl Drop for TurnFactsFeed {
    fn drop(&mut self) {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
    }
}

impl TurnFactsFeed {
    /// No lists to read: the writer's facts are all there is (a bench, a format that
    /// needs none). Never waits.
    pub fn none() -> TurnFactsFeed {
        TurnFactsFeed {
            listings: None,
            turns: Progress::Partial,
            artifacts: Progress::Partial,
            client: None,
            read_lacking: FastSet::default(),
            read_ended: FastSet::default(),
            reader: None,
        }
    }

    /// A feed whose lists come only from `rx`, never read alone (no client).
    fn from_listings(rx: mpsc::UnboundedReceiver<Listing>) -> TurnFactsFeed {
        TurnFactsFeed {
            listings: Some(rx),
            turns: Progress::Reading,
            artifacts: Progress::Reading,
            client: None,
            read_lacking: FastSet::default(),
            read_ended: FastSet::default(),
            reader: None,
        }
    }

    /// The lists read already (a bench): their facts are taken by the first event that
    /// asks, and none is read alone.
    pub fn given(turns: Vec<Turn>, artifacts: Vec<Artifact>) -> TurnFactsFeed {
        let (tx, rx) = mpsc::unbounded_channel();
        let _ = tx.send(Listing::Turns(
            turns.into_iter().map(TurnFact::of).collect(),
        ));
        let _ = tx.send(Listing::TurnsEnded(Ok(None)));
        let _ = tx.send(Listing::Artifacts(Ok(artifacts)));
        TurnFactsFeed::from_listings(rx)
    }

    /// Starts reading `session_id`'s turn and artifact lists, oldest first, both at once.
    pub(crate) fn read(client: &ApiClient, session_id: &str) -> TurnFactsFeed {
        let (tx, rx) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_lists(client.clone(), session_id.to_string(), tx));
        TurnFactsFeed {
            listings: Some(rx),
            turns: Progress::Reading,
            artifacts: Progress::Reading,
            client: Some((client.clone(), session_id.to_string())),
            read_lacking: FastSet::default(),
            read_ended: FastSet::default(),
            reader: Some(reader),
        }
    }

    /// Brings into `facts` what `wanted` needs: pages already read are taken as they are;
    /// the lists are waited for only while a wanted turn (or the artifact list) is still
    /// missing and its list still being read. Failures go to `warn`, once each.
    pub(crate) async fn fill(
        &mut self,
        facts: &mut TurnFacts,
        wanted: &Wanted,
        warn: impl Fn(&str),
    ) {
        self.take_arrived(facts, &warn);
        while self.lists_awaited(facts, wanted) {
            let next = match self.listings.as_mut() {
                Some(listings) => listings.recv().await,
                None => None,
            };
            match next {
                Some(listing) => self.take(listing, facts, &warn),
                None => self.lists_ended(),
            }
        }
        // Each at most once for each reason (a turn may be wanted twice in one event).
        let (lacking, ended) = self.to_read_alone(facts, wanted);
        let lacking = lacking
            .into_iter()
            .filter(|t| self.read_lacking.insert(t.to_string()));
        let lacking: Vec<&String> = lacking.collect();
        let ended = ended
            .into_iter()
            .filter(|t| self.read_ended.insert(t.to_string()));
        let reread: Vec<String> = lacking.into_iter().chain(ended).cloned().collect();
        let Some((client, session_id)) = &self.client else {
            return;
        };
        for turn_id in reread {
            match client.get_turn(session_id, &turn_id).await {
                Ok(turn) => facts.add_turns(vec![turn]),
                Err(e) => warn(&format!(
                    "turn {} could not be read ({e}): its outcome is unknown",
                    gobare_api::text::one_line(&turn_id, 60)
                )),
            }
        }
    }

    /// [`TurnFactsFeed::fill`] when that needs no wait and no read: whether it was (else
    /// nothing is left undone that `fill` would not do).
    pub(crate) fn fill_now(
        &mut self,
        facts: &mut TurnFacts,
        wanted: &Wanted,
        warn: impl Fn(&str),
    ) -> bool {
        self.take_arrived(facts, &warn);
        !self.lists_awaited(facts, wanted) && !self.reads_alone(facts, wanted)
    }

    /// Whether the artifact list is read (whole, or as far as it could be).
    pub(crate) fn artifacts_read(&self) -> bool {
        self.artifacts != Progress::Reading
    }

    /// Whether a list is still being read: facts not known yet may come without a read
    /// of their own.
    pub(crate) fn reading_lists(&self) -> bool {
        self.turns == Progress::Reading || self.artifacts == Progress::Reading
    }

    /// Whether `wanted` waits for a list still being read.
    fn lists_awaited(&self, facts: &TurnFacts, wanted: &Wanted) -> bool {
        let turn_missing =
            self.turns == Progress::Reading && wanted.turns.iter().any(|t| facts.turn(t).is_none());
        turn_missing || (wanted.artifacts && self.artifacts == Progress::Reading)
    }

    /// Whether `wanted` has a turn to read alone (as [`TurnFactsFeed::fill`] picks them).
    fn reads_alone(&self, facts: &TurnFacts, wanted: &Wanted) -> bool {
        let (lacking, ended) = self.to_read_alone(facts, wanted);
        self.client.is_some() && !(lacking.is_empty() && ended.is_empty())
    }

    /// The turns of `wanted` not read alone yet that are to be: those the whole list
    /// lacked, and the one it had working that the history ended.
    fn to_read_alone<'w>(
        &self,
        facts: &TurnFacts,
        wanted: &'w Wanted,
    ) -> (Vec<&'w String>, Vec<&'w String>) {
        let lacking = wanted
            .turns
            .iter()
            .filter(|t| self.turns == Progress::Whole && facts.turn(t).is_none())
            .filter(|t| !self.read_lacking.contains(*t))
            .collect();
        let ended = wanted
            .ended
            .iter()
            .filter(|t| facts.turn(t).is_some_and(|f| f.outcome.is_none()))
            .filter(|t| !self.read_ended.contains(*t))
            .collect();
        (lacking, ended)
    }

    /// Takes every listing already read, without waiting.
    fn take_arrived(&mut self, facts: &mut TurnFacts, warn: &impl Fn(&str)) {
        while let Some(listing) = self.listings.as_mut().and_then(|l| l.try_recv().ok()) {
            self.take(listing, facts, warn);
        }
    }

    fn take(&mut self, listing: Listing, facts: &mut TurnFacts, warn: &impl Fn(&str)) {
        match listing {
            Listing::Turns(turns) => facts.add_facts(turns),
            Listing::TurnsEnded(Ok(None)) => self.turns = Progress::Whole,
            Listing::TurnsEnded(Ok(Some(_))) => self.turns = Progress::Partial,
            Listing::TurnsEnded(Err(e)) => {
                self.turns = Progress::Partial;
                warn(&format!(
                    "the turns could not be read ({e}): outcomes unknown"
                ));
            }
            Listing::Artifacts(Ok(artifacts)) => {
                facts.add_artifacts(artifacts);
                self.artifacts = Progress::Whole;
            }
            Listing::Artifacts(Err(e)) => {
                self.artifacts = Progress::Partial;
                warn(&format!(
                    "the artifacts could not be read ({e}): not listed"
                ));
            }
        }
    }

    /// The reader stopped without saying how a list ended: what is missing is unknown.
    fn lists_ended(&mut self) {
        self.listings = None;
        for progress in [&mut self.turns, &mut self.artifacts] {
            if *progress == Progress::Reading {
                *progress = Progress::Partial;
            }
        }
    }
}

/// The lists of a feed made by [`TurnFactsFeed::handed`]: handed over by a test.
#[cfg(test)]
pub(crate) struct HandedLists(mpsc::UnboundedSender<Listing>);

#[cfg(test)]
impl TurnFactsFeed {
    /// A feed whose lists come only as a test hands them over ([`HandedLists`]).
    pub(crate) fn handed() -> (TurnFactsFeed, HandedLists) {
        let (tx, rx) = mpsc::unbounded_channel();
        let feed = TurnFactsFeed::from_listings(rx);
        (feed, HandedLists(tx))
    }
}

#[cfg(test)]
impl HandedLists {
    /// A page of the turn list.
    pub(crate) fn turns(&self, turns: Vec<Turn>) {
        let facts = turns.into_iter().map(TurnFact::of).collect();
        let _ = self.0.send(Listing::Turns(facts));
    }

    /// Both lists read whole (no artifacts).
    pub(crate) fn end(&self) {
        let _ = self.0.send(Listing::TurnsEnded(Ok(None)));
        let _ = self.0.send(Listing::Artifacts(Ok(Vec::new())));
    }
}

/// Reads both lists, each page handed over as it arrives. The turns are read from both
/// ends at once, oldest first and newest first, until either reaches the end or a turn the
/// other has read: a long list in half the round trips (the cursor is opaque, so no more
/// than two walks can run at once).
async fn read_lists(client: ApiClient, session_id: String, tx: mpsc::UnboundedSender<Listing>) {
    let (client, session_id) = (&client, session_id.as_str());
    let seen = std::sync::Mutex::new(FastSet::default());
    let walk = |order: Order| {
        let (tx, seen) = (&tx, &seen);
        async move {
            let first = Page::ordered(order).with_limit(PAGE);
            paging::read_each(
                first,
                LIMITS,
                |t: &Turn| &t.id,
                |page| async move { client.list_turns(session_id, &page).await },
                |turns: Vec<Turn>| {
                    let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                    let met = turns
                        .iter()
                        .fold(false, |met, t| !seen.insert(t.id.clone()) | met);
                    let _ = tx.send(Listing::Turns(
                        turns.into_iter().map(TurnFact::of).collect(),
                    ));
                    !met
                },
            )
            .await
            .map(|walked| walked.cut)
        }
    };
    let turns = async {
        let (oldest_first, newest_first) = tokio::join!(walk(Order::Asc), walk(Order::Desc));
        // Either walk ending well covers the list: at its end, or where the other had been.
        let ended = match (oldest_first, newest_first) {
            (Ok(None), _) | (_, Ok(None)) => Ok(None),
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(Some(cut)), Ok(Some(_))) => Ok(Some(cut)),
        };
        let _ = tx.send(Listing::TurnsEnded(ended));
    };
    let artifacts = async {
        let listed = crate::downloads::list_all(client, session_id, None).await;
        let _ = tx.send(Listing::Artifacts(listed.map(|l| l.items)));
    };
    tokio::join!(turns, artifacts);
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::auth::Token;
    use gobare_api::client::{ClientOptions, IdempotencyKey};
    use gobare_api::model::{Content, Input, TurnStatus};
    use gobare_sim::{Faults, SimConfig, Simulator};
    use std::time::Duration;

    /// A simulator with a session of `turns` settled turns: its client, the session, and
    /// its turns' ids, oldest first.
    async fn seeded(turns: usize) -> (Simulator, ApiClient, String, Vec<String>) {
        let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
        let options = ClientOptions::new(sim.url(), Token::new(sim.token()));
        let client = ApiClient::new(options).unwrap();
        let id = sim.create_session(None);
        sim.seed_turns(&id, turns, Duration::from_secs(60));
        let ids = turn_ids(&client, &id).await;
        assert_eq!(ids.len(), turns);
        (sim, client, id, ids)
    }

    fn wanting(turn: &str) -> Wanted {
        Wanted {
            turns: vec![turn.to_string()],
            ..Wanted::default()
        }
    }

    /// The session's turns, oldest first, as one reader sees them now.
    async fn turn_ids(client: &ApiClient, id: &str) -> Vec<String> {
        let first = Page::ordered(Order::Asc).with_limit(PAGE);
        let listed = paging::read_all(
            first,
            LIMITS,
            |t: &Turn| &t.id,
            |page| async move { client.list_turns(id, &page).await },
        )
        .await
        .unwrap();
        listed.items.into_iter().map(|t| t.id).collect()
    }

    /// Waits for the newest turn to be one not in `known` and to satisfy `done`.
    async fn new_turn(
        client: &ApiClient,
        id: &str,
        known: &[String],
        done: impl Fn(&Turn) -> bool,
    ) -> String {
        let newest = Page::ordered(Order::Desc).with_limit(1);
        for _ in 0..3_000 {
            let list = client.list_turns(id, &newest).await.unwrap();
            if let Some(turn) = list
                .data
                .first()
                .filter(|t| !known.contains(&t.id) && done(t))
            {
                return turn.id.clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no new turn in 30 s");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_turn_on_a_first_page_is_known_while_the_later_pages_are_still_held() {
        let (sim, client, id, turns) = seeded(250).await;
        sim.set_faults(Faults {
            hold_later_turn_pages: true,
            ..Faults::default()
        });
        let mut feed = TurnFactsFeed::read(&client, &id);
        let mut facts = TurnFacts::unknown();
        let warnings = std::sync::Mutex::new(Vec::new());
        let warn = |w: &str| warnings.lock().unwrap().push(w.to_string());
        // The pages after each end's first never come while held: this returns on the
        // oldest first page alone.
        let first_turn = wanting(&turns[0]);
        let first_only = feed.fill(&mut facts, &first_turn, warn);
        tokio::time::timeout(Duration::from_secs(30), first_only)
            .await
            .expect("waited for a held page");
        let first = facts.turn(&turns[0]).expect("the first turn's facts");
        assert!(first.outcome.is_some(), "{first:?}");
        assert!(facts.turn(&turns[120]).is_none());
        sim.set_faults(Faults::default());
        for turn in [&turns[120], &turns[249], &turns[180], &turns[60]] {
            feed.fill(&mut facts, &wanting(turn), warn).await;
            assert!(facts.turn(turn).is_some_and(|f| f.outcome.is_some()));
        }
        // Read from both ends, the walks met: nothing was read alone.
        let requests = sim.requests();
        let alone = format!("/v1/sessions/{id}/turns/");
        assert!(!requests.iter().any(|r| r.contains(&alone)), "{requests:?}");
        assert!(
            requests
                .iter()
                .any(|r| r.contains("/turns?") && r.contains("order=desc"))
        );
        assert_eq!(*warnings.lock().unwrap(), Vec::<String>::new());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_turn_the_list_lacked_or_had_working_is_read_alone_once() {
        let (sim, client, id, seeded) = seeded(3).await;
        let mut feed = TurnFactsFeed::read(&client, &id);
        let mut facts = TurnFacts::unknown();
        let warn = |w: &str| panic!("warned: {w}");
        // A turn no list has: filled once both walks have read the list whole (so before
        // the turn below starts), then read alone, and not found.
        let wanted = Wanted {
            turns: vec![seeded[2].clone(), "turn_none_such".to_string()],
            artifacts: true,
            ..Wanted::default()
        };
        let warnings = std::sync::Mutex::new(Vec::new());
        let collect = |w: &str| warnings.lock().unwrap().push(w.to_string());
        feed.fill(&mut facts, &wanted, collect).await;
        let warnings = warnings.into_inner().unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("turn_none_such"), "{warnings:?}");
        assert!(facts.turn(&seeded[2]).is_some());
        // A turn that starts after the list was read, and waits for an answer.
        let question = Input::Message {
            content: Content::Text("#question which branch?".into()),
        };
        client
            .send(&id, &question, &IdempotencyKey::new())
            .await
            .unwrap();
        let turn = new_turn(&client, &id, &seeded, |t| t.status == TurnStatus::Working).await;
        feed.fill(&mut facts, &wanting(&turn), warn).await;
        let read = facts.turn(&turn).expect("read alone");
        assert_eq!(read.outcome, None, "still working: {read:?}");
        client
            .send(&id, &Input::Cancel {}, &IdempotencyKey::new())
            .await
            .unwrap();
        new_turn(&client, &id, &seeded, |t| t.status == TurnStatus::Cancelled).await;
        // Wanted again without its end: what was read stands.
        feed.fill(&mut facts, &wanting(&turn), warn).await;
        assert_eq!(facts.turn(&turn).unwrap().outcome, None);
        // Its history says it ended: read again, once.
        let ended = Wanted {
            turns: vec![turn.clone()],
            ended: Some(turn.clone()),
            artifacts: false,
        };
        feed.fill(&mut facts, &ended, warn).await;
        let outcome = facts
            .turn(&turn)
            .unwrap()
            .outcome
            .clone()
            .expect("its outcome");
        assert_eq!(outcome.status, TurnStatus::Cancelled);
        feed.fill(&mut facts, &ended, warn).await;
        let path = format!("/v1/sessions/{id}/turns/{turn}");
        let reads = sim.requests().iter().filter(|r| r.contains(&path)).count();
        assert_eq!(reads, 2, "{:?}", sim.requests());
    }
}
