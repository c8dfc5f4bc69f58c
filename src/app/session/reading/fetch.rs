//! Which resources to read next, coalesced and rate-limited (reference §11.3: refresh on
//! events, within a 120 requests/minute budget shared with everything else).
//!
//! Pure: the loop asks [`FetchQueue::start_ready`] for jobs to spawn now and
//! [`FetchQueue::wake_at`] for when to ask again; nothing here touches the network.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// A read the app performs in the background.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum FetchJob {
    /// `GET /sessions/{id}`.
    Session,
    /// `GET …/turns?order=desc&limit=100`: the newest page, the current turn and how the
    /// turns on the first screen ended.
    Turns,
    /// `GET …/turns/{id}`.
    Turn(String),
    /// `GET …/turns?order=desc&limit=100&after=ID`: the page of turns older than `ID`, for
    /// how older separators ended. Read in the background (see [`FetchJob::is_background`]).
    PastTurns { after: String },
    /// `GET …/items?order=desc&limit=N`: recent history when resuming from a cursor.
    Items,
    /// `GET …/items?order=asc&limit=5`: an untitled session's first message, its name.
    FirstMessage,
    /// `GET …/artifacts`.
    Artifacts,
    /// `GET …/usage`, and `GET /sessions/{root}/usage?root={root}` for the crew rooted at
    /// the given session.
    Usage { crew_root: String },
}

impl FetchJob {
    /// Read only when nothing else waits, one at a time, at most every
    /// [`BACKGROUND_SPACING`], leaving [`BACKGROUND_RESERVE`] of the minute's budget to the
    /// rest: what a screen shows first never waits behind it.
    pub(crate) fn is_background(&self) -> bool {
        matches!(self, FetchJob::PastTurns { .. })
    }
}

/// Background reads start at most this often.
pub(crate) const BACKGROUND_SPACING: Duration = Duration::from_secs(1);
/// Of the minute's budget, what background reads never spend.
pub(crate) const BACKGROUND_RESERVE: usize = 20;

/// Requests the model fetches may make per minute: half the API's budget, leaving the rest
/// to sends and whatever else the user does.
pub(crate) const FETCHES_PER_MINUTE: usize = 60;
/// The same job starts at most this often: a burst of events that each ask for the session
/// (a long replay) becomes one read now and one a second later.
pub(crate) const MIN_JOB_SPACING: Duration = Duration::from_secs(1);
const WINDOW: Duration = Duration::from_secs(60);

#[derive(Debug)]
pub(crate) struct FetchQueue {
    /// Wanted and not started, oldest first, each once.
    wanted: Vec<FetchJob>,
    /// Started and not finished.
    in_flight: Vec<FetchJob>,
    /// When each job last started.
    last_start: HashMap<FetchJob, Instant>,
    /// When the last background job started.
    last_background: Option<Instant>,
    /// Start times inside the last minute.
    recent: VecDeque<Instant>,
    per_minute: usize,
}

impl Default for FetchQueue {
    fn default() -> Self {
        FetchQueue::new(FETCHES_PER_MINUTE)
    }
}

impl FetchQueue {
    pub(crate) fn new(per_minute: usize) -> FetchQueue {
        FetchQueue {
            wanted: Vec::new(),
            in_flight: Vec::new(),
            last_start: HashMap::new(),
            last_background: None,
            recent: VecDeque::new(),
            per_minute: per_minute.max(1),
        }
    }

    /// Asks for `job`. A job already wanted is not queued twice; one in flight is queued
    /// again (its answer may predate the change that asked for it) and runs once it ends.
    pub(crate) fn want(&mut self, job: FetchJob) {
        if let FetchJob::Turn(_) = job {
            // Only the newest settled turn is worth reading.
            self.wanted
                .retain(|j| !matches!(j, FetchJob::Turn(id) if FetchJob::Turn(id.clone()) != job));
        }
        if !self.wanted.contains(&job) {
            self.wanted.push(job);
        }
    }

    /// Whether `job` is wanted or running.
    pub(crate) fn pending(&self, job: &FetchJob) -> bool {
        self.wanted.contains(job) || self.in_flight.contains(job)
    }

    pub(crate) fn in_flight(&self) -> &[FetchJob] {
        &self.in_flight
    }

    /// The jobs to start now (now marked in flight): wanted, not already running, spaced
    /// from their previous start, and within the minute's budget.
    pub(crate) fn start_ready(&mut self, now: Instant) -> Vec<FetchJob> {
        self.forget_old(now);
        let mut started = Vec::new();
        let mut i = 0;
        while i < self.wanted.len() {
            let job = &self.wanted[i];
            let ready = !job.is_background()
                && !self.in_flight.contains(job)
                && self.spaced(job, now)
                && self.recent.len() < self.per_minute;
            if ready {
                let job = self.wanted.remove(i);
                started.push(self.start(job, now));
            } else {
                i += 1;
            }
        }
        if self.background_free_at(now).is_some_and(|at| at <= now)
            && let Some(i) = self.wanted.iter().position(FetchJob::is_background)
        {
            let job = self.wanted.remove(i);
            self.last_background = Some(now);
            started.push(self.start(job, now));
        }
        started
    }

    fn start(&mut self, job: FetchJob, now: Instant) -> FetchJob {
        self.last_start.insert(job.clone(), now);
        self.recent.push_back(now);
        self.in_flight.push(job.clone());
        job
    }

    /// When a background job may start: `None` while anything else is wanted or one is in
    /// flight (its end or the other's start wakes the loop anyway).
    fn background_free_at(&self, now: Instant) -> Option<Instant> {
        let busy = self.wanted.iter().any(|j| !j.is_background())
            || self.in_flight.iter().any(FetchJob::is_background);
        if busy {
            return None;
        }
        let spaced = self.last_background.map_or(now, |t| t + BACKGROUND_SPACING);
        // The start that must leave the window before one more fits under the reserve.
        let allowed = self.per_minute.saturating_sub(BACKGROUND_RESERVE).max(1);
        let budget = match self.recent.len().checked_sub(allowed) {
            None => now,
            Some(over) => self.recent.get(over).map_or(now, |t| *t + WINDOW),
        };
        Some(spaced.max(budget).max(now))
    }

    /// A started job ended (whatever the outcome).
    pub(crate) fn finished(&mut self, job: &FetchJob) {
        self.in_flight.retain(|j| j != job);
    }

    /// When a wanted job that is only waiting on spacing or budget becomes startable;
    /// `None` when nothing waits on time (idle: no timer at all).
    pub(crate) fn wake_at(&self, now: Instant) -> Option<Instant> {
        let budget_free = if self.recent.len() < self.per_minute {
            now
        } else {
            self.recent.front().map_or(now, |t| *t + WINDOW)
        };
        let foreground = self
            .wanted
            .iter()
            .filter(|j| !j.is_background() && !self.in_flight.contains(j))
            .map(|j| {
                let spaced = self.last_start.get(j).map_or(now, |t| *t + MIN_JOB_SPACING);
                spaced.max(budget_free)
            })
            .min();
        let background = self
            .wanted
            .iter()
            .any(FetchJob::is_background)
            .then(|| self.background_free_at(now))
            .flatten();
        foreground.into_iter().chain(background).min()
    }

    fn spaced(&self, job: &FetchJob, now: Instant) -> bool {
        self.last_start
            .get(job)
            .is_none_or(|t| now >= *t + MIN_JOB_SPACING)
    }

    fn forget_old(&mut self, now: Instant) {
        while self.recent.front().is_some_and(|t| now >= *t + WINDOW) {
            self.recent.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_coalesce_and_a_running_job_reruns_once_after_it_ends() {
        let mut q = FetchQueue::default();
        let t0 = Instant::now();
        q.want(FetchJob::Session);
        q.want(FetchJob::Session);
        assert_eq!(q.start_ready(t0), vec![FetchJob::Session]);
        // Asked again three times while in flight: one more read, after it ends.
        q.want(FetchJob::Session);
        q.want(FetchJob::Session);
        q.want(FetchJob::Session);
        let later = t0 + Duration::from_secs(5);
        assert!(q.start_ready(later).is_empty(), "still in flight");
        q.finished(&FetchJob::Session);
        assert_eq!(q.start_ready(later), vec![FetchJob::Session]);
        q.finished(&FetchJob::Session);
        assert!(q.start_ready(later + Duration::from_secs(5)).is_empty());
        assert_eq!(q.wake_at(later), None, "nothing wanted: no timer");
    }

    #[test]
    fn the_same_job_is_spaced_by_a_second() {
        let mut q = FetchQueue::default();
        let t0 = Instant::now();
        q.want(FetchJob::Session);
        q.start_ready(t0);
        q.finished(&FetchJob::Session);
        q.want(FetchJob::Session);
        let soon = t0 + Duration::from_millis(100);
        assert!(q.start_ready(soon).is_empty());
        assert_eq!(q.wake_at(soon), Some(t0 + MIN_JOB_SPACING));
        assert_eq!(q.start_ready(t0 + MIN_JOB_SPACING), vec![FetchJob::Session]);
    }

    #[test]
    fn only_the_newest_turn_is_read() {
        let mut q = FetchQueue::default();
        q.want(FetchJob::Turn("t1".into()));
        q.want(FetchJob::Session);
        q.want(FetchJob::Turn("t2".into()));
        assert_eq!(
            q.start_ready(Instant::now()),
            vec![FetchJob::Session, FetchJob::Turn("t2".into())]
        );
    }

    #[test]
    fn the_minute_budget_holds_and_frees_up() {
        let mut q = FetchQueue::new(3);
        let t0 = Instant::now();
        for (i, job) in [
            FetchJob::Session,
            FetchJob::Turns,
            FetchJob::Items,
            FetchJob::Artifacts,
        ]
        .into_iter()
        .enumerate()
        {
            q.want(job);
            let _ = i;
        }
        assert_eq!(q.start_ready(t0).len(), 3);
        for j in q.in_flight().to_vec() {
            q.finished(&j);
        }
        let t1 = t0 + Duration::from_secs(10);
        assert!(q.start_ready(t1).is_empty(), "budget spent");
        assert_eq!(q.wake_at(t1), Some(t0 + WINDOW));
        assert_eq!(q.start_ready(t0 + WINDOW), vec![FetchJob::Artifacts]);
    }

    fn older(n: usize) -> FetchJob {
        FetchJob::PastTurns {
            after: format!("turn_{n}"),
        }
    }

    #[test]
    fn background_pages_wait_for_the_rest_and_go_one_a_second() {
        let mut q = FetchQueue::default();
        let t0 = Instant::now();
        q.want(FetchJob::Session);
        q.start_ready(t0);
        q.finished(&FetchJob::Session);
        // The session again, waiting a second: the page waits behind it.
        q.want(older(1));
        q.want(FetchJob::Session);
        assert!(q.start_ready(t0).is_empty());
        assert_eq!(q.wake_at(t0), Some(t0 + MIN_JOB_SPACING));
        let t0 = t0 + MIN_JOB_SPACING;
        assert_eq!(q.start_ready(t0), vec![FetchJob::Session, older(1)]);
        q.want(older(2));
        assert!(q.start_ready(t0).is_empty(), "one at a time");
        q.finished(&older(1));
        assert!(q.start_ready(t0).is_empty(), "a second apart");
        assert_eq!(q.wake_at(t0), Some(t0 + BACKGROUND_SPACING));
        q.want(FetchJob::Turns);
        let later = t0 + BACKGROUND_SPACING;
        assert_eq!(q.start_ready(later), vec![FetchJob::Turns, older(2)]);
    }

    #[test]
    fn background_pages_leave_the_reserve_to_the_rest() {
        let mut q = FetchQueue::default();
        let t0 = Instant::now();
        let mut started = 0;
        for n in 0..FETCHES_PER_MINUTE {
            let now = t0 + BACKGROUND_SPACING * n as u32;
            q.want(older(n));
            for j in q.start_ready(now) {
                started += 1;
                q.finished(&j);
            }
        }
        assert_eq!(started, FETCHES_PER_MINUTE - BACKGROUND_RESERVE);
        let now = t0 + BACKGROUND_SPACING * FETCHES_PER_MINUTE as u32;
        q.want(FetchJob::Session);
        assert_eq!(q.start_ready(now), vec![FetchJob::Session], "the reserve");
        q.finished(&FetchJob::Session);
        assert_eq!(
            q.wake_at(now),
            Some(t0 + BACKGROUND_SPACING + WINDOW),
            "when the oldest page still in the minute leaves it"
        );
    }

    #[test]
    fn a_thousand_asks_in_a_minute_stay_within_the_budget() {
        let mut q = FetchQueue::default();
        let t0 = Instant::now();
        let mut started = 0;
        for ms in (0..60_000).step_by(60) {
            let now = t0 + Duration::from_millis(ms);
            q.want(FetchJob::Session);
            q.want(FetchJob::Turn(format!("t{ms}")));
            for j in q.start_ready(now) {
                started += 1;
                q.finished(&j);
            }
        }
        assert!(started <= FETCHES_PER_MINUTE, "{started}");
    }
}
