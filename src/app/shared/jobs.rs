//! Every kind of background job the fronts start, listed in one place (as gitui's `asyncgit`
//! lists its jobs): what each does, the request class its reads and writes go under, and what
//! it reports back. A job is started with [`spawn`] (async, on the runtime) or
//! [`spawn_blocking`] (disk or CPU); both name it in the debug log with how many of its kind
//! are running, so a kind that piles up or never ends shows there.
//! Nothing else under `app/` spawns (the layout test holds it to that).

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};

use gobare_api::client::ApiClient;
use gobare_api::schedule::RequestClass;
use tokio::task::JoinHandle;

/// A kind of background job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Job {
    /// A read of the session in front (session, turns, items, artifacts, usage, …) →
    /// `AppMsg::Fetched`. On screen, or background for the reads nobody looks at yet.
    SessionRead { background: bool },
    /// The send executor's lane or one of its out-of-lane writes (message, steer, cancel,
    /// answer) → `SendEvent`. A person's action.
    Send,
    /// Carries the send executor's events to the front that owns it → `AppMsg::Action` (or
    /// the inbox's reports). No request.
    SendEvents,
    /// Publishing or unpublishing the preview → `AppMsg::Preview`. A person's action.
    Preview,
    /// What the token may do (`GET /v1/health`) → `AppMsg::Health`. On screen.
    TokenScopes,
    /// The artifacts and files overlays' reads and saves → `AppMsg::Outputs`. On screen.
    Outputs,
    /// `x` in the panes: the session's Markdown export to a file → `AppMsg::Exported`. Bulk.
    Export,
    /// A search query over the session's index → `AppMsg::SearchHits`. CPU, no request.
    Search,
    /// Records before the replay window put into the search index after a restart. Disk.
    SearchBackfill,
    /// Paging back through what the transcript's budget dropped, from the local log. Disk.
    PagingBack,
    /// Writing the session's file (cursor, draft, history, pending send). Disk.
    SaveSession,
    /// Waiting for the program `o` opened, so it leaves no zombie. No request.
    OpenerWait,
    /// The fleet's task: its list, org stream and the news it tells. Background.
    FleetLive,
    /// The fleet's detail reads (turns, usage, todos) at its share's pace. Background.
    FleetDetails,
    /// A fleet write (rename, delete, fork, create) → `FleetMsg`. A person's action.
    FleetWrite,
    /// The fleet's digest of an absence → `FleetMsg::Away`. Background.
    FleetAway,
}

/// Every kind, for counting and for tests.
const KINDS: usize = 16;

impl Job {
    /// The kind's name in the log.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Job::SessionRead { .. } => "session read",
            Job::Send => "send",
            Job::SendEvents => "send events",
            Job::Preview => "preview",
            Job::TokenScopes => "token scopes",
            Job::Outputs => "outputs",
            Job::Export => "export",
            Job::Search => "search",
            Job::SearchBackfill => "search backfill",
            Job::PagingBack => "paging back",
            Job::SaveSession => "save session",
            Job::OpenerWait => "opener wait",
            Job::FleetLive => "fleet live",
            Job::FleetDetails => "fleet details",
            Job::FleetWrite => "fleet write",
            Job::FleetAway => "fleet away",
        }
    }

    /// The request class the job's requests go under; `None` for a job that sends none.
    pub(crate) fn class(self) -> Option<RequestClass> {
        match self {
            Job::SessionRead { background: true }
            | Job::FleetLive
            | Job::FleetDetails
            | Job::FleetAway => Some(RequestClass::Background),
            Job::SessionRead { background: false } | Job::TokenScopes | Job::Outputs => {
                Some(RequestClass::OnScreen)
            }
            Job::Send | Job::Preview | Job::FleetWrite => Some(RequestClass::Action),
            Job::Export => Some(RequestClass::Bulk),
            Job::SendEvents
            | Job::Search
            | Job::SearchBackfill
            | Job::PagingBack
            | Job::SaveSession
            | Job::OpenerWait => None,
        }
    }

    /// `client` with this job's request class (a job that sends nothing keeps its class).
    pub(crate) fn client(self, client: &ApiClient) -> ApiClient {
        match self.class() {
            Some(class) => client.with_class(class),
            None => client.clone(),
        }
    }

    fn index(self) -> usize {
        match self {
            Job::SessionRead { .. } => 0,
            Job::Send => 1,
            Job::SendEvents => 2,
            Job::Preview => 3,
            Job::TokenScopes => 4,
            Job::Outputs => 5,
            Job::Export => 6,
            Job::Search => 7,
            Job::SearchBackfill => 8,
            Job::PagingBack => 9,
            Job::SaveSession => 10,
            Job::OpenerWait => 11,
            Job::FleetLive => 12,
            Job::FleetDetails => 13,
            Job::FleetWrite => 14,
            Job::FleetAway => 15,
        }
    }
}

static RUNNING: [AtomicUsize; KINDS] = [const { AtomicUsize::new(0) }; KINDS];

/// How many jobs of `kind` are running in this process.
#[cfg(test)]
pub(crate) fn running(kind: Job) -> usize {
    RUNNING[kind.index()].load(Ordering::Relaxed)
}

/// Counts a job as running until dropped (also when its task is aborted or panics).
struct Running(Job);

impl Running {
    fn start(job: Job) -> Running {
        let now = RUNNING[job.index()].fetch_add(1, Ordering::Relaxed) + 1;
        tracing::debug!(job = job.name(), running = now, "job started");
        Running(job)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING[self.0.index()].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs `future` as a job of kind `job` on the runtime.
pub(crate) fn spawn<F>(job: Job, future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let running = Running::start(job);
    tokio::spawn(async move {
        let _running = running;
        future.await
    })
}

/// Runs `work` as a job of kind `job` on the runtime's blocking threads.
pub(crate) fn spawn_blocking<F, R>(job: Job, work: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let running = Running::start(job);
    tokio::task::spawn_blocking(move || {
        let _running = running;
        work()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_count() {
        let all = [
            Job::SessionRead { background: false },
            Job::Send,
            Job::SendEvents,
            Job::Preview,
            Job::TokenScopes,
            Job::Outputs,
            Job::Export,
            Job::Search,
            Job::SearchBackfill,
            Job::PagingBack,
            Job::SaveSession,
            Job::OpenerWait,
            Job::FleetLive,
            Job::FleetDetails,
            Job::FleetWrite,
            Job::FleetAway,
        ];
        let mut seen: Vec<usize> = all.iter().map(|j| j.index()).collect();
        seen.sort();
        assert_eq!(seen, (0..KINDS).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn a_job_counts_while_it_runs_and_not_after_it_is_aborted() {
        let (release, wait) = tokio::sync::oneshot::channel::<()>();
        let before = running(Job::OpenerWait);
        let job = spawn(Job::OpenerWait, async move {
            let _ = wait.await;
        });
        assert_eq!(running(Job::OpenerWait), before + 1);
        drop(release);
        job.await.unwrap();
        assert_eq!(running(Job::OpenerWait), before);

        let endless = spawn(Job::OpenerWait, std::future::pending::<()>());
        assert_eq!(running(Job::OpenerWait), before + 1);
        endless.abort();
        assert!(endless.await.unwrap_err().is_cancelled());
        assert_eq!(running(Job::OpenerWait), before);
    }

    #[test]
    fn a_persons_writes_go_first_and_reads_nobody_sees_go_last() {
        assert_eq!(Job::Send.class(), Some(RequestClass::Action));
        assert_eq!(Job::FleetWrite.class(), Some(RequestClass::Action));
        assert_eq!(
            Job::SessionRead { background: true }.class(),
            Some(RequestClass::Background)
        );
        assert_eq!(Job::Export.class(), Some(RequestClass::Bulk));
        assert_eq!(Job::Search.class(), None);
    }
}
