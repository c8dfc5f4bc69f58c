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

/// Declares [`Job`] from one list of its kinds, each with its name in the log and the class
/// of its requests, and derives from that list each kind's slot in the running counts.
macro_rules! jobs {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident $({ $($field:ident: $ty:ty),+ })? => $name:literal, $class:expr;
    )+) => {
        /// A kind of background job.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Job {
            $($(#[doc = $doc])* $kind $({ $($field: $ty),+ })?,)+
        }

        /// Each kind's slot in [`RUNNING`].
        #[derive(Clone, Copy)]
        enum Slot {
            $($kind,)+
        }

        /// How many kinds there are.
        const KINDS: usize = [$(Slot::$kind),+].len();

        impl Job {
            /// The kind's name in the log.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Job::$kind { .. } => $name,)+
                }
            }

            /// The request class the job's requests go under; `None` for a job that sends
            /// none.
            pub(crate) fn class(self) -> Option<RequestClass> {
                match self {
                    $(Job::$kind $({ $($field),+ })? => $class,)+
                }
            }

            fn index(self) -> usize {
                match self {
                    $(Job::$kind { .. } => Slot::$kind as usize,)+
                }
            }
        }
    };
}

use RequestClass::{Action, Background, Bulk, OnScreen};

jobs! {
    /// A read of the session in front (session, turns, items, artifacts, usage, …) →
    /// `AppMsg::Fetched`. On screen, or background for the reads nobody looks at yet.
    SessionRead { background: bool } => "session read",
        Some(if background { Background } else { OnScreen });
    /// The send executor's lane or one of its out-of-lane writes (message, steer, cancel,
    /// answer) → `SendEvent`. A person's action.
    Send => "send", Some(Action);
    /// Carries the send executor's events to the front that owns it → `AppMsg::Action` (or
    /// the inbox's reports). No request.
    SendEvents => "send events", None;
    /// Publishing or unpublishing the preview → `AppMsg::Preview`. A person's action.
    Preview => "preview", Some(Action);
    /// Changing the session's approval mode or rules (`PATCH`) → `AppMsg::PolicyWritten`. A
    /// person's action.
    PolicyWrite => "policy write", Some(Action);
    /// What the token may do (`GET /v1/health`) → `AppMsg::Health`. On screen.
    TokenScopes => "token scopes", Some(OnScreen);
    /// The artifacts and files overlays' reads and saves → `AppMsg::Overlay`. On screen.
    Overlays => "overlays", Some(OnScreen);
    /// `x` in the panes: the session's Markdown export to a file → `AppMsg::Exported`. Bulk.
    Export => "export", Some(Bulk);
    /// A search query over the session's index → `AppMsg::SearchHits`. CPU, no request.
    Search => "search", None;
    /// Records before the replay window put into the search index after a restart. Disk.
    SearchBackfill => "search backfill", None;
    /// Paging back through what the transcript's budget dropped, from the local event log. Disk.
    PagingBack => "paging back", None;
    /// Writing the session's file (cursor, draft, history, pending send). Disk.
    SaveSession => "save session", None;
    /// Waiting for the program `o` opened, so it leaves no zombie. No request.
    OpenerWait => "opener wait", None;
    /// The fleet's task: its list, org stream and the news it tells. Background.
    FleetLive => "fleet live", Some(Background);
    /// The fleet's detail reads (turns, usage, todos) at its share's pace. Background.
    FleetDetails => "fleet details", Some(Background);
    /// A fleet write (rename, delete, fork, create) → `FleetMsg`. A person's action.
    FleetWrite => "fleet write", Some(Action);
    /// The fleet's digest of an absence → `FleetMsg::Away`. Background.
    FleetAway => "fleet away", Some(Background);
}

impl Job {
    /// `client` with this job's request class (a job that sends nothing keeps its class).
    pub(crate) fn client(self, client: &ApiClient) -> ApiClient {
        match self.class() {
            Some(class) => client.with_class(class),
            None => client.clone(),
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
    fn every_kind_has_its_own_count_and_name() {
        let all = [
            Job::SessionRead { background: false },
            Job::Send,
            Job::SendEvents,
            Job::Preview,
            Job::PolicyWrite,
            Job::TokenScopes,
            Job::Overlays,
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
        let slots: Vec<usize> = all.iter().map(|j| j.index()).collect();
        assert_eq!(slots, (0..KINDS).collect::<Vec<_>>());
        let mut names: Vec<&str> = all.iter().map(|j| j.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KINDS);
        assert_eq!(Job::SessionRead { background: true }.index(), 0);
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
