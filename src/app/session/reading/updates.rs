//! News from outside the terminal: stream updates (applied in batches), connection
//! changes, and the results of background work ([`AppMsg`]).

use std::time::Instant;

use super::fetch::FetchJob;
use crate::app::session::{AppMsg, MAX_BATCH, SessionFront};
use crate::keys::Intent;
use crate::session::{Fetch, Severity, Update};
use gobare_api::error::{ApiError, ApiErrorKind};
use gobare_api::stream::ConnectionState;
use gobare_api::stream::{StreamFrame, StreamUpdate};

impl SessionFront {
    /// The stream's news as the runtime hands it over: `first` and what else is queued, up
    /// to about [`MAX_BATCH`] updates (a run is applied whole); `None`, the stream is gone.
    pub(crate) fn on_stream_update(&mut self, first: Option<StreamUpdate>) {
        let Some(first) = first else {
            self.stream = None;
            return;
        };
        let now = Instant::now();
        let mut applied = first.count();
        self.on_stream(first, now);
        while applied < MAX_BATCH {
            let Some(stream) = self.stream.as_mut() else {
                break;
            };
            match stream.updates.try_recv() {
                Ok(update) => {
                    applied += update.count();
                    self.on_stream(update, now);
                }
                Err(_) => break,
            }
        }
        self.hand_off_event_log();
        self.take_model_fetches();
    }

    /// Applies one update (the local event log's replay comes this way too).
    pub(crate) fn on_stream(&mut self, mut update: StreamUpdate, now: Instant) {
        match update {
            // Applied where it lies: a frame is hundreds of bytes, moved out it is copied.
            StreamUpdate::Frame(ref mut frame) => self.on_frame(frame, now),
            StreamUpdate::Run(run) => {
                // Each frame is made where it is applied, and the run's share of the queue
                // is given back once, as it is dropped.
                for mut frame in run.frames() {
                    self.on_frame(&mut frame, now);
                }
            }
            StreamUpdate::Skipped { reason } => self.apply(Update::Skipped { reason }),
            StreamUpdate::Anomaly { reason } => {
                tracing::warn!(%reason, "event stream anomaly");
                self.notice_at(Severity::Warn, format!("stream: {reason}"));
            }
            StreamUpdate::Lost { seq, reason } => {
                // Counted like a skip, and said out loud: the transcript has a hole here.
                let text = format!(
                    "event {seq} could not be shown: {}",
                    gobare_api::text::one_line(&reason, 200)
                );
                self.apply(Update::Skipped { reason });
                self.notice_at(Severity::Error, text);
            }
            StreamUpdate::State(state) => self.on_connection(state, now),
        }
    }

    fn on_frame(&mut self, frame: &mut StreamFrame, now: Instant) {
        frame.decode_in_place();
        self.stats.events += 1;
        self.append_to_event_log(frame);
        match &frame.event {
            Ok(event) => {
                self.act_on_event(event);
                self.away_feed(event);
                if event.seq.is_some() {
                    self.replay.on_persisted(now);
                } else if self.replay.on_transient() {
                    self.on_replay_over();
                    crate::app::shared::heap::release_freed_memory();
                }
                let indexed = self.index_event(event);
                if self.session.apply_borrowed_event(event) {
                    self.frames.request();
                }
                if let Some(pending) = indexed {
                    self.index_applied(pending, event);
                }
            }
            Err(e) => self.apply(Update::Skipped {
                reason: e.to_string(),
            }),
        }
    }

    fn on_connection(&mut self, state: ConnectionState, now: Instant) {
        match self
            .silence
            .on_state(&state, now, gobare_api::clock::unix_ms())
        {
            super::silence::SilenceStep::StartReading => {
                tracing::info!("the event stream says nothing; reading the session instead");
                self.want_silent_reads();
            }
            super::silence::SilenceStep::Spoke => {
                // What the reads showed meanwhile is settled by the events now replayed.
                self.fetches.want(FetchJob::Session);
                self.fetches.want(FetchJob::Turns);
            }
            super::silence::SilenceStep::Nothing => {}
        }
        let silent_since = self.silence.since_ms();
        let reading = self.silence.reading();
        if self.session.set_stream_silence(silent_since, reading) {
            self.frames.request();
        }
        // Subscribed once the stream is open, spoken or not (§11.1): a first message waits
        // for no frame.
        if matches!(state, ConnectionState::Open { .. })
            && let Some(text) = self.first_message.take()
        {
            self.dispatch(Intent::SendFirst(text));
        }
        if state == ConnectionState::Live {
            self.replay.on_live(now);
            let reconnected = self.was_live && self.session.connection() != Some(&state);
            self.was_live = true;
            if reconnected {
                // What changed while away shows only in the resources (§11.3).
                self.fetches.want(FetchJob::Session);
                self.fetches.want(FetchJob::Turns);
            } else {
                // A first read that failed (server down at start) is retried once it is
                // back; one still under way is not asked twice.
                if !self.session_loaded && !self.fetches.pending(&FetchJob::Session) {
                    self.fetches.want(FetchJob::Session);
                }
                let turns_read = self.turn_pages.newest_page_from().is_some();
                if !turns_read && !self.fetches.pending(&FetchJob::Turns) {
                    self.fetches.want(FetchJob::Turns);
                }
            }
            if let Some(text) = self.first_message.take() {
                self.dispatch(Intent::SendFirst(text));
            }
        }
        if matches!(state, ConnectionState::Failed { .. }) && self.session.last_seq().is_none() {
            // The stream cannot replay (refused for good) and nothing is shown: the recent
            // items are better than an empty transcript.
            self.fetches.want(FetchJob::Items);
        }
        self.apply(Update::Connection(state));
    }

    pub(crate) fn take_model_fetches(&mut self) {
        for fetch in self.session.take_fetches() {
            let job = match fetch {
                Fetch::Session => FetchJob::Session,
                Fetch::Turn(_) if self.replay.is_active() => {
                    // A replay ends turns by the thousand: the newest page read once it is
                    // over says how they ended, not a read per turn.
                    self.turn_pages.left_to_the_newest_page();
                    continue;
                }
                Fetch::Turn(id) => FetchJob::Turn(id),
                Fetch::Usage => self.usage_job(),
            };
            self.fetches.want(job);
        }
    }

    /// The replay caught up (the status bar changes).
    pub(crate) fn on_replay_over(&mut self) {
        self.frames.request();
        self.want_turn_pages();
    }

    /// The pages of turns the separators and the Turn pane still need, once the replay is
    /// over: the newest once more when a turn ended since it was read, else the next older
    /// one, in the background.
    fn want_turn_pages(&mut self) {
        if self.replay.is_active() {
            return;
        }
        let since = self.turn_pages.newest_page_from();
        let missing = self.session.outcomes_missing_since(since);
        if self.turn_pages.read_newest_again(missing) {
            self.fetches.want(FetchJob::Turns);
            return;
        }
        let oldest = self.session.oldest_turn_end_without_outcome();
        if let Some(job) = self.turn_pages.next_older(oldest) {
            self.fetches.want(job);
        }
    }

    pub(crate) fn usage_job(&self) -> FetchJob {
        FetchJob::Usage {
            crew_root: self.session.crew_root(),
        }
    }

    /// Handles one result of background work.
    pub(crate) fn on_msg(&mut self, msg: AppMsg) {
        match msg {
            AppMsg::Fetched {
                job,
                result,
                more_after,
            } => self.on_fetched(job, *result, more_after),
            AppMsg::Action(event) => self.on_action(event),
            AppMsg::StateSaved(done) => self.on_state_saved(done),
            AppMsg::PreviewWritten { publish, result } => self.on_preview_written(publish, result),
            AppMsg::PolicyWritten { change, result } => self.on_policy_written(change, *result),
            AppMsg::Exported { path, result } => self.on_exported(path, result),
            AppMsg::EarlierPage(page) => self.on_earlier_page(*page),
            AppMsg::Backfilled(backfill) => self.on_backfilled(*backfill),
            AppMsg::SearchHits {
                generation,
                hits,
                done,
            } => self.on_search_hits(generation, hits, done),
            AppMsg::Overlay(msg) => self.on_overlay_msg(msg),
            AppMsg::Health(result) => self.on_health(*result),
        }
        self.take_model_fetches();
    }

    fn on_fetched(
        &mut self,
        job: FetchJob,
        result: Result<Update, ApiError>,
        more_after: Option<String>,
    ) {
        self.fetches.finished(&job);
        let mut wants_usage = false;
        match result {
            Ok(update) => {
                if let Update::Session(session) = &update {
                    wants_usage = self.on_session_read(session);
                }
                if let Update::Turn(turn) = &update {
                    self.act_on_turn(turn);
                }
                match &update {
                    Update::Turns(turns) => self.turn_pages.newest_read(turns, more_after),
                    Update::PastTurns(turns) => self.turn_pages.older_read(turns, more_after),
                    _ => {}
                }
                let turns_read = matches!(update, Update::Turns(_) | Update::PastTurns(_));
                self.away_read(&update);
                self.apply(update);
                if turns_read {
                    self.want_turn_pages();
                }
                if wants_usage {
                    let usage = self.usage_job();
                    self.fetches.want(usage);
                }
            }
            Err(e) if matches!(job, FetchJob::Usage { .. }) && e.kind == ApiErrorKind::NotFound => {
                // A deleted session has no usage; older servers have no such route.
                tracing::debug!(error = %e, "no usage");
            }
            Err(e) if job == FetchJob::Session && !self.session_loaded && is_fatal(&e) => {
                let mut e = e;
                if e.kind == ApiErrorKind::NotFound {
                    e.message = format!(
                        "session {} does not exist, or this token cannot see it",
                        gobare_api::text::line(&self.session_id)
                    );
                }
                self.fail(e.into());
            }
            Err(e) => {
                tracing::warn!(?job, error = %e, "read failed");
                let what = match job {
                    FetchJob::Session => "the session",
                    FetchJob::Turns | FetchJob::Turn(_) => "the turn",
                    FetchJob::PastTurns { .. } => "how earlier turns ended",
                    FetchJob::Items => "the history",
                    FetchJob::FirstMessage => "the first message",
                    FetchJob::Artifacts => "the artifacts",
                    FetchJob::Usage { .. } => "the usage",
                };
                self.notice_at(
                    Severity::Warn,
                    format!("could not read {what}: {}", e.summary()),
                );
            }
        }
    }

    /// The session read: a stream silent while it moved reconnects; the first read loads
    /// the session (and asks for its first message when untitled). Gives whether its usage
    /// is to be read now.
    fn on_session_read(&mut self, session: &gobare_api::model::Session) -> bool {
        let mut wants_usage = false;
        if self
            .silence
            .on_session_read(session.updated_at, Instant::now())
            && let Some(stream) = &self.stream
        {
            tracing::info!("the session moved while its stream said nothing; reconnecting");
            stream.retry_now();
        }
        if !self.session_loaded {
            self.session_loaded = true;
            self.remember_last_session();
            // Untitled: named by its first message, as `list` and the fleet do.
            if session.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
                self.fetches.want(FetchJob::FirstMessage);
            }
            // Read once the session is known: its parent names the crew.
            wants_usage = true;
        }
        self.act_on_session(session);
        wants_usage
    }

    /// Plain `gobare-tui` reopens this session next time (only once it is known to exist).
    /// The reads that stand in for a silent stream: the session, its turns, its items.
    /// The session, its turns and items read in place of a silent stream; the status bar
    /// says so from the first read.
    pub(crate) fn want_silent_reads(&mut self) {
        self.fetches.want(FetchJob::Session);
        self.fetches.want(FetchJob::Turns);
        self.fetches.want(FetchJob::Items);
        if self
            .session
            .set_stream_silence(self.silence.since_ms(), self.silence.reading())
        {
            self.frames.request();
        }
    }

    pub(crate) fn remember_last_session(&self) {
        if let Some(store) = &self.store
            && let Err(e) = store.set_last_session(&self.session_id)
        {
            tracing::warn!("cannot remember the last session: {e}");
        }
    }
}

fn is_fatal(e: &ApiError) -> bool {
    matches!(
        e.kind,
        ApiErrorKind::NotFound | ApiErrorKind::Unauthorized | ApiErrorKind::Forbidden
    )
}
