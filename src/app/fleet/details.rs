//! What only a session's own reads hold — the running turn's start and the queue behind it
//! (`GET …/turns?limit=100`, newest first: one page a session, not a read per turn), its
//! usage and its artifacts — read in a task of its own, paced to a share of the rate budget,
//! and handed back as messages: a slow server delays these reads, never the stream.

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::error::ApiErrorKind;
use gobare_api::schedule::RequestClass;
use gobare_api::stream::StreamOptions;
use gobare_api::text;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::todos_replay;
pub use crate::fleet::reads::{TodosFound, TurnsRead};

/// The fleet's share of the rate budget (120 a minute for everything).
pub const READS_PER_MINUTE: u32 = 60;
/// Reads made at once before the pace sets in (a small fleet fills in at once).
const BURST: u32 = 20;
/// Turns read per session: the running turn and those queued behind it are the newest.
const TURNS_PAGE: u32 = 100;

/// What to read of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetailReads {
    pub turns: bool,
    pub usage: bool,
    pub artifacts: bool,
    /// The running turn's todo list, replayed (its turn began before the fleet opened).
    pub todos: bool,
}

impl DetailReads {
    pub const ALL: DetailReads = DetailReads {
        turns: true,
        usage: true,
        artifacts: true,
        todos: false,
    };
    pub const USAGE: DetailReads = DetailReads {
        turns: false,
        usage: true,
        artifacts: false,
        todos: false,
    };
    pub const TURNS: DetailReads = DetailReads {
        turns: true,
        usage: false,
        artifacts: false,
        todos: false,
    };
    pub const TODOS: DetailReads = DetailReads {
        turns: false,
        usage: false,
        artifacts: false,
        todos: true,
    };
    /// Usage and artifacts: the figures of a row.
    pub const FIGURES: DetailReads = DetailReads {
        turns: false,
        usage: true,
        artifacts: true,
        todos: false,
    };
    pub const TURNS_AND_USAGE: DetailReads = DetailReads {
        turns: true,
        usage: true,
        artifacts: false,
        todos: false,
    };
}

/// One session's reads, as far as they went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailsRead {
    pub id: String,
    pub turns: Option<TurnsRead>,
    pub sandbox_seconds: Option<u64>,
    /// When the usage's figures were taken (Unix ms).
    pub usage_as_of: Option<i64>,
    /// The server has no usage route (404 on it, the session's turns still there).
    pub no_usage: bool,
    pub artifacts: Option<u32>,
    pub todos: Option<TodosFound>,
    /// 404: the session is gone.
    pub gone: bool,
}

/// Hands back what the reads found. The task ends when this is dropped.
pub struct DetailReader {
    asks: DetailAsks,
    /// What the reads found, in the order they ended.
    pub found: mpsc::UnboundedReceiver<DetailsRead>,
    task: tokio::task::JoinHandle<()>,
}

/// Asks the [`DetailReader`] for reads.
#[derive(Debug, Clone)]
pub struct DetailAsks {
    asks: mpsc::UnboundedSender<Asked>,
}

impl Drop for DetailReader {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Debug)]
struct Ask {
    id: String,
    wanted: DetailReads,
    /// Ahead of what waits in its lane (a turn ended, a row on screen).
    urgent: bool,
    /// Read before and read again (a turn ended, usage grew): such reads take turns with
    /// first reads, so a busy fleet's re-reads never starve a row that has none.
    again: bool,
    /// A waiting decision's deadline needs it (its workspace's running time): ahead of
    /// every other read, rows on screen included.
    deadline: bool,
}

#[derive(Debug)]
enum Asked {
    Read(Ask),
    /// These sessions' queued reads go first (their clocks, then their figures), in
    /// their order; nothing is added.
    Hurry(Vec<String>),
}

impl DetailReader {
    /// Starts reading at `per_minute` requests a minute at most; replays open streams as
    /// `replay` says (its address and token), up to `covered_from` (Unix ms), from which
    /// the org stream has every event.
    pub fn start(
        client: ApiClient,
        replay: StreamOptions,
        covered_from: i64,
        per_minute: u32,
    ) -> DetailReader {
        let (asks, asked) = mpsc::unbounded_channel();
        let (found_tx, found) = mpsc::unbounded_channel();
        let reads = Reads {
            client,
            replay,
            covered_from,
        };
        let task = crate::app::shared::jobs::spawn(
            crate::app::shared::jobs::Job::FleetDetails,
            run(reads, Pacer::new(per_minute), asked, found_tx),
        );
        DetailReader {
            asks: DetailAsks { asks },
            found,
            task,
        }
    }

    pub fn asks(&self) -> DetailAsks {
        self.asks.clone()
    }
}

impl DetailAsks {
    /// Reads `wanted` of `id` when its turn comes; asked twice before it is read, once.
    pub fn want(&self, id: &str, wanted: DetailReads, urgent: bool) {
        let _ = self.asks.send(Asked::Read(Ask {
            id: id.to_string(),
            wanted,
            urgent,
            again: false,
            deadline: false,
        }));
    }

    /// Reads `id`'s usage before anything else: a decision waits there and its deadline
    /// counts its workspace's running time. Such reads go in the order asked.
    pub fn want_deadline(&self, id: &str) {
        let _ = self.asks.send(Asked::Read(Ask {
            id: id.to_string(),
            wanted: DetailReads::USAGE,
            urgent: false,
            again: false,
            deadline: true,
        }));
    }

    /// Reads `wanted` of `id` again, what was read before being stale (see `Ask::again`).
    pub fn want_again(&self, id: &str, wanted: DetailReads, urgent: bool) {
        let _ = self.asks.send(Asked::Read(Ask {
            id: id.to_string(),
            wanted,
            urgent,
            again: true,
            deadline: false,
        }));
    }

    /// Whatever of `ids` waits to be read is read first (their rows are on screen).
    pub fn hurry(&self, ids: Vec<String>) {
        if !ids.is_empty() {
            let _ = self.asks.send(Asked::Hurry(ids));
        }
    }
}

/// One request of a session's reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Read {
    Turns,
    Usage,
    Artifacts,
    Todos,
}

/// What the reads are made with.
struct Reads {
    client: ApiClient,
    replay: StreamOptions,
    covered_from: i64,
}

impl DetailReads {
    fn reads(self) -> impl Iterator<Item = Read> {
        [
            (self.turns, Read::Turns),
            (self.usage, Read::Usage),
            (self.artifacts, Read::Artifacts),
            (self.todos, Read::Todos),
        ]
        .into_iter()
        .filter_map(|(wanted, read)| wanted.then_some(read))
    }
}

/// Requests waiting to be made, each once, the urgent ones first in their lane: a request
/// at a time, so every running row's turns come before the settled rows' usage. The usage
/// a waiting decision's deadline needs goes before everything (its own lane, in the order
/// asked). First reads and re-reads are two lanes taking turns: a fleet whose turns end
/// faster than the pace still gives every row its first read.
#[derive(Debug, Default)]
struct Queue {
    deadlines: VecDeque<(String, Read)>,
    first: VecDeque<(String, Read)>,
    again: VecDeque<(String, Read)>,
    queued: HashSet<(String, Read)>,
    /// The last read came from the `first` lane: the next comes from `again`, if any.
    took_first: bool,
    /// The last read came from the deadlines' lane.
    took_deadline: bool,
}

impl Queue {
    fn push(&mut self, ask: Ask) {
        for read in ask.wanted.reads() {
            let entry = (ask.id.clone(), read);
            if ask.deadline {
                // Queued elsewhere already: moved to the deadlines' lane.
                if self.queued.contains(&entry) {
                    for lane in [&mut self.first, &mut self.again] {
                        lane.retain(|e| *e != entry);
                    }
                    if self.deadlines.contains(&entry) {
                        continue;
                    }
                }
                self.queued.insert(entry.clone());
                self.deadlines.push_back(entry);
                continue;
            }
            if self.queued.contains(&entry) {
                if ask.urgent {
                    for lane in [&mut self.first, &mut self.again] {
                        if let Some(at) = lane.iter().position(|e| *e == entry)
                            && at > 0
                        {
                            let entry = lane.remove(at).expect("found above");
                            lane.push_front(entry);
                        }
                    }
                }
            } else {
                self.queued.insert(entry.clone());
                let lane = if ask.again {
                    &mut self.again
                } else {
                    &mut self.first
                };
                if ask.urgent {
                    lane.push_front(entry);
                } else {
                    lane.push_back(entry);
                }
            }
        }
    }

    fn take(&mut self, asked: Asked) {
        match asked {
            Asked::Read(ask) => self.push(ask),
            Asked::Hurry(ids) => {
                let on_screen = |id: &String| ids.contains(id);
                for lane in [&mut self.first, &mut self.again] {
                    // The rows on screen: their clocks, then their figures, then the rest.
                    let (hurried, rest): (VecDeque<_>, VecDeque<_>) =
                        lane.drain(..).partition(|(queued, _)| on_screen(queued));
                    let (clocks, figures): (VecDeque<_>, VecDeque<_>) = hurried
                        .into_iter()
                        .partition(|(_, read)| *read == Read::Turns);
                    *lane = clocks;
                    lane.extend(figures);
                    lane.extend(rest);
                }
            }
        }
    }

    fn pop(&mut self) -> Option<(String, Read)> {
        self.took_deadline = false;
        if let Some(entry) = self.deadlines.pop_front() {
            self.queued.remove(&entry);
            self.took_deadline = true;
            return Some(entry);
        }
        let again = match (self.first.is_empty(), self.again.is_empty()) {
            (true, true) => return None,
            (false, false) => self.took_first,
            (first_empty, _) => first_empty,
        };
        self.took_first = !again;
        let entry = if again {
            self.again.pop_front()
        } else {
            self.first.pop_front()
        }
        .expect("the lane is not empty");
        self.queued.remove(&entry);
        Some(entry)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.deadlines.len() + self.first.len() + self.again.len()
    }
}

/// A token bucket: `BURST` requests at once, then one every `60 / per_minute` seconds.
#[derive(Debug)]
struct Pacer {
    tokens: f64,
    per_second: f64,
    at: Instant,
}

impl Pacer {
    fn new(per_minute: u32) -> Pacer {
        Pacer {
            tokens: f64::from(BURST),
            per_second: f64::from(per_minute.max(1)) / 60.0,
            at: Instant::now(),
        }
    }

    /// Waits until a request may be made, and counts it.
    async fn take(&mut self) {
        let now = Instant::now();
        let earned = now.duration_since(self.at).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + earned).min(f64::from(BURST));
        self.at = now;
        if self.tokens < 1.0 {
            let wait = Duration::from_secs_f64((1.0 - self.tokens) / self.per_second);
            tokio::time::sleep(wait).await;
            self.tokens = 1.0;
            self.at = Instant::now();
        }
        self.tokens -= 1.0;
    }
}

async fn run(
    reads: Reads,
    mut pacer: Pacer,
    mut asked: mpsc::UnboundedReceiver<Asked>,
    found: mpsc::UnboundedSender<DetailsRead>,
) {
    let mut queue = Queue::default();
    loop {
        while let Ok(ask) = asked.try_recv() {
            queue.take(ask);
        }
        let Some((id, what)) = queue.pop() else {
            match asked.recv().await {
                Some(ask) => {
                    queue.take(ask);
                    continue;
                }
                None => return,
            }
        };
        pacer.take().await;
        // A decision's deadline is what the inbox shows of it: asked as what is on screen,
        // ahead of the fleet's other background reads (first messages, todos), within
        // this reader's own pace.
        let class = if queue.took_deadline {
            RequestClass::OnScreen
        } else {
            RequestClass::Background
        };
        let read = read(&reads, id, what, class).await;
        if found.send(read).is_err() {
            return;
        }
    }
}

/// One read of session `id`, as a request of `class`.
async fn read(reads: &Reads, id: String, what: Read, class: RequestClass) -> DetailsRead {
    let client = &reads.client.with_class(class);
    let mut read = DetailsRead {
        id,
        turns: None,
        sandbox_seconds: None,
        usage_as_of: None,
        no_usage: false,
        artifacts: None,
        todos: None,
        gone: false,
    };
    let page = Page::ordered(Order::Desc).with_limit(TURNS_PAGE);
    let failed = match what {
        Read::Turns => match client.list_turns(&read.id, &page).await {
            Ok(turns) => {
                read.turns = Some(TurnsRead::of(&turns.data));
                None
            }
            Err(e) => Some(e),
        },
        Read::Usage => match client.get_usage(&read.id, false).await {
            Ok(usage) => {
                read.sandbox_seconds = Some(usage.sandbox_seconds);
                read.usage_as_of = usage.as_of;
                None
            }
            Err(e) => Some(e),
        },
        Read::Artifacts => match client.list_artifacts(&read.id, &page, None).await {
            Ok(artifacts) => {
                read.artifacts = Some(artifacts.data.len() as u32);
                None
            }
            Err(e) => Some(e),
        },
        Read::Todos => {
            read.todos =
                Some(todos_replay::read(&reads.replay, &read.id, reads.covered_from).await);
            None
        }
    };
    if let Some(e) = failed {
        // Gone only when the session's own turns are: a 404 on usage or artifacts is an
        // older server without that route, a figure missing, not a session.
        if e.kind == ApiErrorKind::NotFound && what == Read::Turns {
            read.gone = true;
        } else if e.kind == ApiErrorKind::NotFound {
            read.no_usage = what == Read::Usage;
            tracing::debug!(session = %text::line(&read.id), ?what, "no such route here");
        } else {
            tracing::warn!(session = %text::line(&read.id), error = %e, ?what, "fleet read failed");
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::{Turn, TurnStatus};

    fn turn(id: &str, status: &str, started: Option<i64>, completed: Option<i64>) -> Turn {
        serde_json::from_value(serde_json::json!({
            "object": "turn", "id": id, "session_id": "s", "status": status,
            "created_at": 1, "started_at": started, "completed_at": completed
        }))
        .unwrap()
    }

    #[test]
    fn a_page_of_turns_gives_the_running_start_the_queue_and_the_outcomes() {
        let page = [
            turn("t5", "working", None, None),
            turn("t4", "working", None, None),
            turn("t3", "working", Some(300), None),
            turn("t2", "failed", Some(200), Some(250)),
            turn("t1", "completed", Some(100), Some(150)),
        ];
        let read = TurnsRead::of(&page);
        assert_eq!(read.running_since, Some(300));
        assert_eq!(read.queued, 2);
        assert_eq!(
            read.ended,
            [
                ("t2".to_string(), TurnStatus::Failed),
                ("t1".to_string(), TurnStatus::Completed)
            ]
        );
        assert_eq!(TurnsRead::of(&[]), TurnsRead::default());
    }

    fn ask(id: &str, wanted: DetailReads, urgent: bool) -> Ask {
        Ask {
            id: id.into(),
            wanted,
            urgent,
            again: false,
            deadline: false,
        }
    }

    fn deadline(id: &str) -> Ask {
        Ask {
            deadline: true,
            ..ask(id, DetailReads::USAGE, false)
        }
    }

    fn again(id: &str, wanted: DetailReads) -> Ask {
        Ask {
            again: true,
            ..ask(id, wanted, true)
        }
    }

    #[test]
    fn the_queue_reads_each_session_once_the_urgent_first() {
        let mut q = Queue::default();
        q.push(ask("a", DetailReads::USAGE, false));
        q.push(ask("b", DetailReads::USAGE, false));
        q.push(ask("c", DetailReads::USAGE, false));
        q.push(ask("c", DetailReads::TURNS_AND_USAGE, true));
        q.push(ask("a", DetailReads::ALL, false));
        let popped: Vec<(String, Read)> = std::iter::from_fn(|| q.pop()).collect();
        let want = |id: &str, read| (id.to_string(), read);
        assert_eq!(
            popped,
            [
                want("c", Read::Usage),
                want("c", Read::Turns),
                want("a", Read::Usage),
                want("b", Read::Usage),
                want("a", Read::Turns),
                want("a", Read::Artifacts),
            ]
        );
        q.push(ask("a", DetailReads::ALL, false));
        q.push(ask("b", DetailReads::USAGE, false));
        q.take(Asked::Hurry(vec!["b".into()]));
        q.take(Asked::Hurry(vec!["nobody".into()]));
        assert_eq!(q.pop(), Some(want("b", Read::Usage)), "on screen: first");
        assert_eq!(q.len(), 3, "nothing added");
    }

    #[test]
    fn rows_on_screen_get_their_clocks_then_their_figures_then_the_rest() {
        let mut q = Queue::default();
        for id in ["a", "b", "c"] {
            q.push(ask(id, DetailReads::TURNS, false));
        }
        for id in ["a", "b", "c"] {
            q.push(ask(id, DetailReads::FIGURES, false));
        }
        // The rows on screen, as the fleet hurries them after a draw.
        q.take(Asked::Hurry(vec!["b".into(), "c".into()]));
        let popped: Vec<(String, Read)> = std::iter::from_fn(|| q.pop()).collect();
        let want = |id: &str, read| (id.to_string(), read);
        assert_eq!(
            popped,
            [
                want("b", Read::Turns),
                want("c", Read::Turns),
                want("b", Read::Usage),
                want("b", Read::Artifacts),
                want("c", Read::Usage),
                want("c", Read::Artifacts),
                want("a", Read::Turns),
                want("a", Read::Usage),
                want("a", Read::Artifacts),
            ]
        );
    }

    #[test]
    fn re_reads_take_turns_with_first_reads_so_a_busy_fleet_never_starves_a_row() {
        let mut q = Queue::default();
        for id in ["quiet1", "quiet2"] {
            q.push(ask(id, DetailReads::TURNS, false));
        }
        let want = |id: &str, read| Some((id.to_string(), read));
        // Turns end on busy rows faster than the pace: each asks its re-read, urgent.
        for round in 0..2 {
            q.push(again(&format!("busy{round}"), DetailReads::TURNS));
            q.push(again(&format!("busy{round}b"), DetailReads::TURNS));
            let expected_first = format!("quiet{}", round + 1);
            assert_eq!(q.pop(), want(&expected_first, Read::Turns), "round {round}");
            assert!(q.pop().is_some_and(|(id, _)| id.starts_with("busy")));
        }
        // Only re-reads left: they go one after the other.
        assert!(std::iter::from_fn(|| q.pop()).all(|(id, _)| id.starts_with("busy")));
    }

    #[test]
    fn a_waiting_decisions_usage_goes_before_rows_on_screen_and_re_reads() {
        let mut q = Queue::default();
        let want = |id: &str, read| (id.to_string(), read);
        // A fleet opening: every row's figures, two rows on screen hurried, turns ending.
        for id in ["a", "b", "c", "w1", "w2"] {
            q.push(ask(id, DetailReads::FIGURES, false));
        }
        q.push(again("busy", DetailReads::TURNS_AND_USAGE));
        q.push(deadline("w2"));
        q.push(deadline("w1"));
        q.push(deadline("w2"));
        q.take(Asked::Hurry(vec!["a".into(), "b".into()]));
        q.push(ask("c", DetailReads::TURNS, true));
        q.push(ask("w1", DetailReads::USAGE, true));
        let popped: Vec<(String, Read)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            popped[..2],
            [want("w2", Read::Usage), want("w1", Read::Usage)],
            "the deadlines' usage first, in the order asked, each once: {popped:?}"
        );
        let usage_of = |id: &str| {
            popped
                .iter()
                .filter(|e| **e == want(id, Read::Usage))
                .count()
        };
        assert_eq!((usage_of("w1"), usage_of("w2")), (1, 1), "{popped:?}");
        assert_eq!(popped.len(), 13, "nothing else lost or doubled: {popped:?}");
        q.push(deadline("w3"));
        q.push(ask("a", DetailReads::USAGE, true));
        assert_eq!(q.pop(), Some(want("w3", Read::Usage)));
        assert!(q.took_deadline, "asked as what is on screen");
        assert_eq!(q.pop(), Some(want("a", Read::Usage)));
        assert!(!q.took_deadline);
    }

    #[tokio::test(start_paused = true)]
    async fn the_pacer_allows_a_burst_then_one_read_a_second() {
        let mut pacer = Pacer::new(60);
        let start = Instant::now();
        for _ in 0..BURST {
            pacer.take().await;
        }
        assert_eq!(Instant::now(), start, "the burst waits for nothing");
        pacer.take().await;
        pacer.take().await;
        let waited = Instant::now() - start;
        assert!(
            waited >= Duration::from_millis(1999) && waited <= Duration::from_millis(2001),
            "{waited:?}"
        );
        // Idle for a minute earns the burst back, not more.
        tokio::time::advance(Duration::from_secs(60)).await;
        let before = Instant::now();
        for _ in 0..BURST {
            pacer.take().await;
        }
        assert_eq!(Instant::now(), before);
        pacer.take().await;
        assert!(Instant::now() - before >= Duration::from_millis(999));
    }
}
