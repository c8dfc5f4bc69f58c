//! When the session state is written: off the input path (on a blocking thread), at most
//! once per [`SAVE_INTERVAL`], backing off while the disk refuses, with one notice and one
//! log line per failure episode rather than per attempt.
//!
//! The loop asks [`StateSaver::due_at`] when to come back, starts a [`SaveJob`] with
//! [`StateSaver::start`] and hands the [`SaveDone`] it reports to [`StateSaver::finished`].
//! Until a write succeeds the state stays in memory, and it is written once the disk
//! recovers.

use super::saved_session::{SAVE_INTERVAL, SaveDone, SaveJob, SavedSession};
use std::time::{Duration, Instant};

/// The longest wait between two attempts while the disk refuses: recovery is noticed
/// within this.
pub(crate) const RETRY_MAX: Duration = Duration::from_secs(4);

/// What the user should hear about saving.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SaveNews {
    /// The first failure of an episode: the line to show.
    Failing(String),
    /// A write succeeded after failures.
    Recovered,
}

/// The write schedule of one session's state.
#[derive(Debug, Default)]
pub(crate) struct StateSaver {
    last_attempt: Option<Instant>,
    /// Failed attempts in a row (the current episode).
    failures: u32,
    in_flight: bool,
}

impl StateSaver {
    /// When the next write may start, given whether anything is left to write; `None`
    /// while a write runs (its report wakes the loop) or nothing changed.
    pub(crate) fn due_at(&self, now: Instant, dirty: bool) -> Option<Instant> {
        if self.in_flight || !dirty {
            return None;
        }
        Some(self.last_attempt.map_or(now, |at| at + self.wait()))
    }

    /// Whether a write should start now.
    pub(crate) fn is_due(&self, now: Instant, dirty: bool) -> bool {
        self.due_at(now, dirty).is_some_and(|at| at <= now)
    }

    /// One second after a write; after failures, doubling up to [`RETRY_MAX`].
    fn wait(&self) -> Duration {
        match self.failures {
            0 => SAVE_INTERVAL,
            n => SAVE_INTERVAL
                .saturating_mul(1 << (n - 1).min(8))
                .min(RETRY_MAX),
        }
    }

    /// Runs `job` on a blocking thread; `report` gets its outcome, for [`Self::finished`].
    pub(crate) fn start(
        &mut self,
        now: Instant,
        job: SaveJob,
        report: impl FnOnce(SaveDone) + Send + 'static,
    ) {
        self.in_flight = true;
        self.last_attempt = Some(now);
        crate::app::shared::jobs::spawn_blocking(
            crate::app::shared::jobs::Job::SaveSession,
            move || report(job.write()),
        );
    }

    /// A write ended: the memory learns what is on disk, and the user hears about the first
    /// failure of an episode and the recovery after one.
    pub(crate) fn finished(
        &mut self,
        done: SaveDone,
        saved_session: &mut SavedSession,
    ) -> Option<SaveNews> {
        self.in_flight = false;
        match done.result {
            Ok(()) => {
                saved_session.note_saved(done.generation);
                let failed = std::mem::take(&mut self.failures);
                (failed > 0).then(|| {
                    tracing::info!(failed_attempts = failed, "the session state is saved again");
                    SaveNews::Recovered
                })
            }
            Err(error) => {
                self.failures += 1;
                (self.failures == 1)
                    .then(|| {
                        let dir = saved_session.dir().display().to_string();
                        tracing::warn!(
                            %error, %dir,
                            "cannot save the session state; it is kept in memory and retried \
                             (at most once a second) until the disk takes it"
                        );
                        format!(
                            "cannot save state to {} — your draft is kept in memory",
                            gobare_api::text::line(&dir)
                        )
                    })
                    .map(SaveNews::Failing)
            }
        }
    }
}

#[cfg(test)]
mod tests;
