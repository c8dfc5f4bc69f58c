//! `gobare-tui follow SESSION_ID`: the session as the screen-reader mode says it, without
//! the input: role-labelled lines on stdout, its whole history first, then live until
//! Ctrl+C. For mosh, a log file, a second terminal read by a screen reader.
//!
//! The lines come from the same session model and the same words as the screen-reader
//! mode. How a turn ended is read from the turn (§13.8): the whole list once the history
//! has replayed, then each turn as it ends (each on its own, however the events were
//! batched). A turn's ending is said once, in its place: what came after it waits for its
//! outcome, [`crate::ui::screen_reader::ENDING_WAIT`] at most, and is then said with "how it ended could not be read".
//! How the connection goes is said on stderr: stdout holds the session alone.

mod outcome_reads;

use std::io::Write;
use std::time::Instant;

use crate::app::session::reading::replay::ReplayProgress;
use crate::cli::FollowArgs;
use crate::config::Config;
use crate::session::{Fetch, Session, Update};
use crate::ui::screen_reader::ScreenReader;
use color_eyre::eyre::{Result, bail};
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::Turn;
use gobare_api::paging::{self, PageLimits};
use gobare_api::stream::{self, StreamTarget, StreamUpdate};
use outcome_reads::OutcomeReads;
use tokio::sync::mpsc;

/// Turns read in one walk at the end of the history (the export reads as many).
const TURN_LIMITS: PageLimits = PageLimits {
    pages: 100,
    items: 10_000,
};

pub(crate) async fn run(config: Config, args: FollowArgs) -> Result<()> {
    config.require_token()?;
    let session_id = super::session_id::resolve(&config, &args.session_id).await?;
    let client = config.client()?;
    let options = config.stream_options(StreamTarget::Session(session_id.clone()), Some(0))?;
    let mut view = Session::new(session_id.clone());
    let mut reader = ScreenReader::following();
    let mut replay = ReplayProgress::new(true);
    let (reads_tx, mut reads_rx) = mpsc::unbounded_channel::<Update>();
    // The history's turns are read once it has replayed, not one request per turn.
    let mut turns_owed = false;
    let mut outcomes = OutcomeReads::default();
    if let Ok(session) = client.get_session(&session_id).await {
        view.apply(Update::Session(Box::new(session)));
    }
    let mut stream = stream::spawn(options);
    // Listened for once, for the whole run: a listener made anew each turn of the loop
    // missed a Ctrl+C that came while the loop was busy, and `follow` went on.
    let shutdown = super::tail::shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let quiet = replay.quiet_deadline();
        // The next moment something is due by the clock: a turn read again, an ending
        // that stops waiting for its outcome.
        let reads_again = outcomes.wake_at().filter(|_| !replay.is_active());
        let due = [reads_again, reader.ending_deadline()]
            .into_iter()
            .flatten()
            .min();
        tokio::select! {
            update = stream.updates.recv() => {
                let Some(update) = update else { break };
                let now = Instant::now();
                apply(&mut view, &mut replay, update, now);
                while let Ok(update) = stream.updates.try_recv() {
                    apply(&mut view, &mut replay, update, now);
                }
            }
            Some(read) = reads_rx.recv() => {
                view.apply(read);
            }
            () = sleep_until(quiet), if quiet.is_some() => {
                replay.check_quiet(Instant::now());
            }
            () = sleep_until(due), if due.is_some() => {}
            () = &mut shutdown => break,
        }
        for fetch in view.take_fetches() {
            match fetch {
                Fetch::Turn(_) if replay.is_active() => turns_owed = true,
                // Each ending is read below, not only the newest the model asks for.
                Fetch::Turn(_) => {}
                // What waits is answerable once the session lists it.
                Fetch::Session => read_session(&client, &session_id, &reads_tx),
                Fetch::Usage => {}
            }
        }
        if turns_owed && !replay.is_active() {
            turns_owed = false;
            outcomes.list_reads(view.transcript().turns_without_outcome());
            read_turns(&client, &session_id, &reads_tx);
        }
        let now = Instant::now();
        if !replay.is_active() && !turns_owed {
            for turn_id in outcomes.due(view.transcript().turns_without_outcome(), now) {
                read_turn(&client, &session_id, turn_id, &reads_tx);
            }
        }
        reader.set_clock(now);
        let lines = reader.new_lines(&view, None, replay.is_active());
        for aside in reader.take_aside() {
            eprintln!("{aside}");
        }
        if !say(&lines) {
            // The reader went away (`follow … | head`).
            return Ok(());
        }
        if let Some(stream::ConnectionState::Failed { reason }) = view.connection() {
            bail!(
                "the event stream failed: {}",
                gobare_api::text::one_line(reason, 500)
            );
        }
        // Two connections that said nothing, and nothing read yet: printing nothing would
        // look like a quiet session.
        if let Some(stream::ConnectionState::Open { silent_before }) = view.connection()
            && *silent_before >= crate::export::history::SILENT_CONNECTIONS
            && view.last_seq().is_none()
        {
            bail!(
                "the event stream connected {} times and sent nothing, not even a keep-alive \
                 (a buffering proxy?); nothing of the session was read",
                silent_before + 1
            );
        }
    }
    Ok(())
}

fn apply(view: &mut Session, replay: &mut ReplayProgress, update: StreamUpdate, now: Instant) {
    match update {
        StreamUpdate::Run(run) => {
            for mut frame in run.frames() {
                frame.decode_in_place();
                apply(view, replay, StreamUpdate::Frame(frame), now);
            }
        }
        StreamUpdate::Frame(frame) => match frame.event {
            Ok(event) => {
                if event.seq.is_some() {
                    replay.on_persisted(now);
                } else {
                    replay.on_transient();
                }
                view.apply(Update::Event(event));
            }
            Err(e) => {
                view.apply(Update::Skipped {
                    reason: e.to_string(),
                });
            }
        },
        StreamUpdate::State(state) => {
            if state == stream::ConnectionState::Live {
                replay.on_live(now);
            }
            view.apply(Update::Connection(state));
        }
        StreamUpdate::Skipped { reason } => {
            view.apply(Update::Skipped { reason });
        }
        StreamUpdate::Anomaly { reason } | StreamUpdate::Lost { reason, .. } => {
            tracing::warn!(%reason, "event stream");
        }
    }
}

fn read_turn(
    client: &ApiClient,
    session_id: &str,
    turn_id: String,
    to: &mpsc::UnboundedSender<Update>,
) {
    let (client, session_id, to) = (client.clone(), session_id.to_string(), to.clone());
    tokio::spawn(async move {
        match client.get_turn(&session_id, &turn_id).await {
            Ok(turn) => {
                let _ = to.send(Update::Turn(turn));
            }
            Err(e) => tracing::warn!(%e, "could not read a turn"),
        }
    });
}

fn read_session(client: &ApiClient, session_id: &str, to: &mpsc::UnboundedSender<Update>) {
    let (client, session_id, to) = (client.clone(), session_id.to_string(), to.clone());
    tokio::spawn(async move {
        match client.get_session(&session_id).await {
            Ok(session) => {
                let _ = to.send(Update::Session(Box::new(session)));
            }
            Err(e) => tracing::warn!(%e, "could not read the session"),
        }
    });
}

fn read_turns(client: &ApiClient, session_id: &str, to: &mpsc::UnboundedSender<Update>) {
    let (client, session_id, to) = (client.clone(), session_id.to_string(), to.clone());
    tokio::spawn(async move {
        let first = Page::ordered(Order::Asc).with_limit(100);
        let listed = paging::read_all(
            first,
            TURN_LIMITS,
            |t: &Turn| &t.id,
            |page| {
                let (client, session_id) = (&client, &session_id);
                async move { client.list_turns(session_id, &page).await }
            },
        )
        .await;
        match listed {
            Ok(listed) => {
                let _ = to.send(Update::Turns(listed.items));
            }
            Err(e) => tracing::warn!(%e, "could not read the turns"),
        }
    });
}

/// Writes `lines` on stdout; `false` once nobody reads it.
fn say(lines: &[String]) -> bool {
    if lines.is_empty() {
        return true;
    }
    let mut out = std::io::stdout().lock();
    let written = lines
        .iter()
        .try_for_each(|line| writeln!(out, "{line}"))
        .and_then(|()| out.flush());
    written.is_ok()
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}
