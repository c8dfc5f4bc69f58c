//! What runs after every wake-up: timers that are due, background reads the queue allows,
//! the cursor write, and the frame. Also when the loop must next wake up by itself —
//! `None` when idle, so an idle session costs nothing.

use std::time::{Duration, Instant};

use super::{SessionFront, reading::fetch_run};
use crate::app::session::reading::artifacts::PollAction;
use crate::app::session::reading::fetch::FetchJob;
use crate::session::Update;
use color_eyre::Result;
use gobare_api::clock::unix_ms;

/// How often usage is read while a turn runs (it reads "0s" at a turn's start otherwise
/// until the turn ends).
pub(crate) const USAGE_WHILE_WORKING: Duration = Duration::from_secs(30);
/// How often usage is read while the workspace runs and no turn does (it accrues until it
/// pauses; between reads the pane counts on from the last).
pub(crate) const USAGE_WHILE_RUNNING: Duration = Duration::from_secs(60);

/// Whether usage last read at `at` is due again at `now`, read `every` so often.
pub(crate) fn usage_due(at: Instant, now: Instant, every: Duration) -> bool {
    now.saturating_duration_since(at) >= every
}

/// How often the clock ticks: every second while something on screen counts (a running
/// turn, a deadline), every minute while only relative times ("3m ago") are shown, never
/// otherwise (an idle screen draws nothing).
pub(crate) fn tick_every(counting: bool, relative_shown: bool) -> Option<Duration> {
    if counting {
        Some(Duration::from_secs(1))
    } else if relative_shown {
        Some(Duration::from_secs(60))
    } else {
        None
    }
}

impl SessionFront {
    /// Timers, background reads and the frame: run after every wake-up.
    pub(crate) fn housekeeping(&mut self, now: Instant) -> Result<()> {
        #[cfg(debug_assertions)]
        if self.debug_panic && self.frames.frames_drawn() > 0 {
            panic!("{}", crate::app::shared::debug_panic::MESSAGE);
        }
        if self.replay.check_quiet(now) {
            self.on_replay_over();
            crate::app::shared::heap::release_freed_memory();
            self.trim.done(now, self.stats.events);
        } else if self.trim.due(now, self.stats.events) {
            crate::app::shared::heap::release_freed_memory();
        }
        self.tick(now);
        self.show_budget_wait();
        if self.silence.read_due(now) {
            self.want_silent_reads();
        }
        self.refresh_usage(now);
        self.act_pending_tick(now);
        self.end_hold_if_over(now);
        if self.notice_expires_at.is_some_and(|at| at <= now) {
            self.notice(None);
        }
        self.poll_artifacts(now);
        self.ring_alarms(unix_ms());
        self.act_own_news_due(now);
        self.away_check();
        for job in self.fetches.start_ready(now) {
            fetch_run::spawn(&self.client, &self.session_id, job, self.msgs.clone());
        }
        self.save_cursor();
        self.act_save(now);
        if self.frames.due_at(now).is_some_and(|due| due <= now) {
            self.draw()?;
            self.frames.drawn(Instant::now());
        }
        self.write_stats(now, false);
        Ok(())
    }

    /// Sandbox usage grows while a turn runs: read again every [`USAGE_WHILE_WORKING`]
    /// then (the end of the turn reads it too), never while idle.
    fn refresh_usage(&mut self, now: Instant) {
        let every = if self.session.turn_running() {
            USAGE_WHILE_WORKING
        } else if self.session.workspace_running() {
            USAGE_WHILE_RUNNING
        } else {
            self.usage_read_at = None;
            return;
        };
        match self.usage_read_at {
            None => self.usage_read_at = Some(now),
            Some(at) if usage_due(at, now, every) => {
                self.usage_read_at = Some(now);
                let job = self.usage_job();
                self.fetches.want(job);
            }
            Some(_) => {}
        }
    }

    /// The clock: one tick a second while a turn runs or a deadline counts down, one a
    /// minute while only relative times ("3m ago") are on screen, none otherwise.
    fn tick(&mut self, now: Instant) {
        let Some(every) = tick_every(
            self.session.turn_running()
                || self.session.actions().counts_down()
                || self.session.workspace_running()
                || self.silence.since_ms().is_some(),
            self.screen.shows_relative_times(),
        ) else {
            self.tick_at = None;
            return;
        };
        match self.tick_at {
            None => self.tick_at = Some(now + every),
            Some(at) if now >= at => {
                self.apply(Update::Tick(unix_ms()));
                // A tick asks a frame only when something on screen moves with the clock.
                self.frames.request();
                self.tick_at = Some(now + every);
            }
            // A minute's wait shortened when a running clock appears.
            Some(at) if at > now + every => self.tick_at = Some(now + every),
            Some(_) => {}
        }
        // The first tick sets the clock at once so elapsed time shows immediately.
        if self.session.now_ms().is_none() {
            self.apply(Update::Tick(unix_ms()));
        }
    }

    /// A read of what is on screen (or a person's action) waiting more than a moment for
    /// the request budget is said in the status bar, counting down.
    fn show_budget_wait(&mut self) {
        let wait = *self.budget_wait.borrow();
        let secs = wait
            .filter(|w| w.class <= gobare_api::schedule::RequestClass::OnScreen)
            .map(|w| {
                w.until
                    .saturating_duration_since(tokio::time::Instant::now())
            })
            .filter(|left| !left.is_zero())
            .map(|left| left.as_secs() + 1);
        if self.session.set_budget_wait(secs) {
            self.frames.request();
        }
    }

    fn poll_artifacts(&mut self, now: Instant) {
        match self
            .artifacts_poll
            .update(self.session.artifacts_pending_turn(), now)
        {
            PollAction::Nothing => {}
            PollAction::ReadTurn(turn) => self.fetches.want(FetchJob::Turn(turn)),
            PollAction::ListArtifacts => self.fetches.want(FetchJob::Artifacts),
        }
    }

    /// Hands the stream cursor to the saved session, which writes it at most once per
    /// [`crate::app::shared::saved_session::SAVE_INTERVAL`] and on exit; never past what the
    /// local event log holds.
    pub(crate) fn save_cursor(&mut self) {
        self.act_cursor(self.cursor_to_store());
    }

    /// The earliest moment something is due; `None` sleeps until input or news arrives.
    pub(crate) fn next_deadline(&self, now: Instant) -> Option<Instant> {
        [
            self.frames.due_at(now),
            self.fetches.wake_at(now),
            self.replay.quiet_deadline(),
            self.tick_at,
            self.silence.due_at(),
            // While reads are out, look each second whether one waits for the budget.
            (!self.fetches.in_flight().is_empty() || self.session.budget_wait_secs().is_some())
                .then(|| now + Duration::from_secs(1)),
            self.artifacts_poll.due_at(),
            self.stats.due_at(now),
            self.act_save_due_at(now),
            self.act_pending_due_at(),
            self.notice_expires_at,
            self.decided_hold.due_at(),
            self.alarms_due_at(now),
            self.acting.notifier.own_due_at(),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_ticks_each_second_while_counting_each_minute_for_relative_times_else_never() {
        assert_eq!(tick_every(true, true), Some(Duration::from_secs(1)));
        assert_eq!(tick_every(true, false), Some(Duration::from_secs(1)));
        assert_eq!(tick_every(false, true), Some(Duration::from_secs(60)));
        assert_eq!(tick_every(false, false), None);
    }

    #[test]
    fn usage_is_read_again_every_half_minute_of_a_running_turn() {
        let t0 = Instant::now();
        let every = USAGE_WHILE_WORKING;
        assert!(!usage_due(t0, t0 + Duration::from_secs(29), every));
        assert!(usage_due(t0, t0 + USAGE_WHILE_WORKING, every));
        assert!(
            !usage_due(t0 + Duration::from_secs(5), t0, every),
            "a clock going back is not due"
        );
        assert!(!usage_due(
            t0,
            t0 + USAGE_WHILE_WORKING,
            USAGE_WHILE_RUNNING
        ));
    }
}
