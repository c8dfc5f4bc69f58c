//! Running the user's `[notify] command` for one piece of news: the event as one line of
//! JSON on its stdin, nothing from the server on its command line, `GOBARE_TOKEN` taken
//! out of its environment, stdout and stderr kept off the screen.
//!
//! It never holds up the loop: each run is a task of its own. At most [`MAX_RUNNING`] run at
//! once (a hung script must not pile up processes); a run beyond is skipped, logged and
//! counted in the next run's `skipped`. A run still going at its timeout is killed with its
//! whole process group (`sh -c` leaves its children behind otherwise), and every failure is
//! logged.

use super::choice::NotifyCommandSpec;
use super::kind::NotifyEvent;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;

/// Notify commands running at once, across the whole app.
pub(crate) const MAX_RUNNING: usize = 4;
/// Bytes of a failed command's stderr kept for the log.
const STDERR_KEPT: u64 = 2048;
/// The environment variable that holds the API token: never handed on.
const TOKEN_ENV: &str = "GOBARE_TOKEN";

/// The app's one budget of running commands.
static RUNNING: Semaphore = Semaphore::const_new(MAX_RUNNING);

/// The app's process groups of commands, ended when it quits.
static GROUPS: Groups = Groups::new();

/// Process groups of the commands run so far that may still hold a process: a command that
/// ended can leave a child running in its group (`sleep 300 &`), which would outlive the app.
#[derive(Debug)]
pub(crate) struct Groups(std::sync::Mutex<Vec<i32>>);

impl Groups {
    pub(crate) const fn new() -> Groups {
        Groups(std::sync::Mutex::new(Vec::new()))
    }

    fn add(&self, group: i32) {
        let mut groups = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Empty groups are let go of (their id may be given to a new process).
        groups.retain(|g| group_lives(*g));
        groups.push(group);
    }

    /// Ends every group that still has a process; how many did.
    pub(crate) fn end_all(&self) -> usize {
        let groups = std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        let mut ended = 0;
        for group in groups {
            // SAFETY: kill(2) with a negative pid signals that process group, one this
            // app made for a command (process_group(0)).
            if unsafe { libc::kill(-group, libc::SIGKILL) } == 0 {
                ended += 1;
            }
        }
        ended
    }
}

/// Whether a process of `group` still runs.
fn group_lives(group: i32) -> bool {
    // SAFETY: signal 0 only asks whether the group exists.
    unsafe { libc::kill(-group, 0) == 0 }
}

/// Ends what the app's commands left running, as it quits.
pub(crate) fn end_left_running() {
    let ended = GROUPS.end_all();
    if ended > 0 {
        tracing::info!(groups = ended, "notify commands' processes ended at quit");
    }
}

/// How one run ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    Exited(ExitStatus),
    /// Still running at the timeout: its process group was killed.
    Killed,
    SpawnFailed(std::io::Error),
}

/// Runs the configured command for each notification.
#[derive(Debug, Clone)]
pub(crate) struct CommandRunner {
    spec: Arc<NotifyCommandSpec>,
    timeout: Duration,
    permits: Option<Arc<Semaphore>>,
    groups: Option<Arc<Groups>>,
    /// Runs skipped since the last that started.
    skipped: Arc<AtomicU64>,
}

impl CommandRunner {
    pub(crate) fn new(spec: NotifyCommandSpec, timeout: Duration) -> CommandRunner {
        CommandRunner {
            spec: Arc::new(spec),
            timeout,
            permits: None,
            groups: None,
            skipped: Arc::default(),
        }
    }

    /// The same, with a budget of its own (tests, which run side by side in one process).
    #[cfg(test)]
    pub(crate) fn with_permits(mut self, permits: Arc<Semaphore>) -> CommandRunner {
        self.permits = Some(permits);
        self
    }

    /// Starts a run for `event` on its own task; `false` when [`MAX_RUNNING`] are running
    /// already (skipped: logged, and counted in the next run's `skipped`). Needs a tokio
    /// runtime.
    pub(crate) fn notify(&self, event: &NotifyEvent) -> bool {
        let permit = match &self.permits {
            Some(own) => own.clone().try_acquire_owned().map(Permit::Owned),
            None => RUNNING.try_acquire().map(Permit::Static),
        };
        let Ok(permit) = permit else {
            let skipped = self.skipped.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(
                event = event.event.as_str(),
                skipped,
                "notify command: {MAX_RUNNING} still running; this run is skipped (the next \
                 one's `skipped` counts it)"
            );
            return false;
        };
        let mut event = event.clone();
        event.skipped = self.skipped.swap(0, Ordering::Relaxed);
        let (spec, timeout, input) = (self.spec.clone(), self.timeout, event.to_json_line());
        let kind = event.event.as_str();
        let groups = self.groups.clone();
        tokio::spawn(async move {
            let groups = groups.as_deref().unwrap_or(&GROUPS);
            let outcome = run_once(&spec, &input, timeout, groups).await;
            drop(permit);
            log_outcome(kind, &spec, &outcome);
        });
        true
    }
}

/// A permit from the app's budget or a runner's own.
enum Permit {
    Static(#[allow(dead_code)] tokio::sync::SemaphorePermit<'static>),
    Owned(#[allow(dead_code)] tokio::sync::OwnedSemaphorePermit),
}

fn log_outcome(kind: &str, spec: &NotifyCommandSpec, outcome: &(Outcome, String)) {
    let program = &spec.program;
    match outcome {
        (Outcome::Exited(status), _) if status.success() => {
            tracing::debug!(event = kind, %program, "notify command done")
        }
        (Outcome::Exited(status), stderr) => {
            tracing::warn!(event = kind, %program, %status, stderr = %stderr, "notify command failed")
        }
        (Outcome::Killed, stderr) => tracing::warn!(
            event = kind,
            %program,
            stderr = %stderr,
            "notify command still running at its timeout: killed with its process group"
        ),
        (Outcome::SpawnFailed(e), _) => {
            tracing::warn!(event = kind, %program, error = %e, "notify command could not start")
        }
    }
}

/// The command as it is started: arguments from the config only, the token out of its
/// environment, its output off the screen, in a process group of its own.
fn command(spec: &NotifyCommandSpec) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(&spec.program);
    command
        .args(&spec.args)
        .env_remove(TOKEN_ENV)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // A group of its own: the timeout kills whatever it started too, and the
        // terminal's Ctrl+C never reaches it.
        .process_group(0)
        .kill_on_drop(true);
    command
}

/// One run: `input` on stdin, at most `timeout`. Returns how it ended and the start of
/// what it wrote on stderr (one line, printable). Its group is kept in `groups` to be ended
/// at quit.
pub(crate) async fn run_once(
    spec: &NotifyCommandSpec,
    input: &[u8],
    timeout: Duration,
    groups: &Groups,
) -> (Outcome, String) {
    let mut child = match command(spec).spawn() {
        Ok(child) => child,
        Err(e) => return (Outcome::SpawnFailed(e), String::new()),
    };
    let group = child.id();
    if let Some(group) = group.and_then(|p| i32::try_from(p).ok()) {
        groups.add(group);
    }
    let mut stdin = child.stdin.take();
    let stderr = child.stderr.take();
    let stderr_read = tokio::spawn(async move {
        let mut kept = Vec::new();
        if let Some(stderr) = stderr {
            let _ = stderr.take(STDERR_KEPT).read_to_end(&mut kept).await;
        }
        kept
    });
    let run = async {
        if let Some(stdin) = &mut stdin {
            // A command that does not read its input is not a failure.
            let _ = stdin.write_all(input).await;
            let _ = stdin.shutdown().await;
        }
        drop(stdin.take());
        child.wait().await
    };
    let outcome = match tokio::time::timeout(timeout, run).await {
        Ok(Ok(status)) => Outcome::Exited(status),
        Ok(Err(e)) => Outcome::SpawnFailed(e),
        Err(_) => {
            if let Some(pid) = group.and_then(|p| i32::try_from(p).ok()) {
                // SAFETY: kill(2) with a negative pid signals that process group; the
                // group is the child's own (process_group(0) above).
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            let _ = child.wait().await;
            Outcome::Killed
        }
    };
    // Whatever it left running holds stderr open no longer than the group lived.
    let stderr = match tokio::time::timeout(Duration::from_secs(1), stderr_read).await {
        Ok(Ok(bytes)) => gobare_api::text::one_line(&String::from_utf8_lossy(&bytes), 300),
        _ => String::new(),
    };
    (outcome, stderr)
}

#[cfg(test)]
mod tests;
