//! What runs after every wake-up: timers that are due, background reads the queue allows,
//! the cursor write, and the frame. Also when the loop must next wake up by itself —
//! `None` when idle, so an idle session costs nothing.

use std::time::{Duration, Instant};

use super::artifacts::PollAction;
use super::fetch::FetchJob;
use super::{App, fetch_run};
use crate::session::Update;
use color_eyre::Result;
use gobare_api::clock::unix_ms;

impl App {
    /// Timers, background reads and the frame: run after every wake-up.
    pub(super) fn housekeeping(&mut self, now: Instant) -> Result<()> {
        if self.replay.check_quiet(now) {
            self.frames.request();
            super::heap::release_freed_memory();
            self.trim.done(now, self.stats.events);
        } else if self.trim.due(now, self.stats.events) {
            super::heap::release_freed_memory();
        }
        self.tick(now);
        self.act_pending_tick(now);
        if self.notice_expires_at.is_some_and(|at| at <= now) {
            self.notice(None);
        }
        self.poll_artifacts(now);
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

    /// The clock: one tick a second while a turn runs or a deadline counts down, one a
    /// minute while only relative times ("3 m ago") are on screen, none otherwise.
    fn tick(&mut self, now: Instant) {
        let every = if self.view.turn_running() || self.view.actions().counts_down() {
            Duration::from_secs(1)
        } else if self.screen.shows_relative_times() {
            Duration::from_secs(60)
        } else {
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
        if self.view.now_ms().is_none() {
            self.apply(Update::Tick(unix_ms()));
        }
    }

    fn poll_artifacts(&mut self, now: Instant) {
        match self
            .artifacts_poll
            .update(self.view.artifacts_pending_turn(), now)
        {
            PollAction::Nothing => {}
            PollAction::ReadTurn(turn) => self.fetches.want(FetchJob::Turn(turn)),
            PollAction::ListArtifacts => self.fetches.want(FetchJob::Artifacts),
        }
    }

    /// Hands the stream cursor to the session memory, which writes it at most once per
    /// [`super::memory::SAVE_INTERVAL`] and on exit; never past what the local log holds.
    pub(super) fn save_cursor(&mut self) {
        self.act_cursor(self.log_cursor());
    }

    /// The earliest moment something is due; `None` sleeps until input or news arrives.
    pub(super) fn next_deadline(&self, now: Instant) -> Option<Instant> {
        [
            self.frames.due_at(now),
            self.fetches.wake_at(now),
            self.replay.quiet_deadline(),
            self.tick_at,
            self.artifacts_poll.due_at(),
            self.stats.due_at(now),
            self.act_save_due_at(now),
            self.act_pending_due_at(),
            self.notice_expires_at,
        ]
        .into_iter()
        .flatten()
        .min()
    }
}
