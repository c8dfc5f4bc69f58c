//! One export, from the stream to its output: the session read first (title, whether it is
//! settled; nothing is written unless it is found), its turns and artifacts for Markdown,
//! then its history from seq 0 up to its current end, written event by event as Markdown
//! or JSON lines. Shared by `gobare-tui export` and the app's export key; neither holds
//! more than the stream's queue and one turn's facts per turn in memory.

use super::facts_feed::TurnFactsFeed;
use super::history::{self, Ends, History, HistoryRead, Piece};
use super::jsonl::envelope_line;
use super::markdown::MarkdownWriter;
use super::markdown_thread::{BATCH_BYTES, BATCH_FRAMES, MarkdownThread};
use super::output::Output;
use super::turn_facts::TurnFacts;
use color_eyre::eyre::{Result, WrapErr, eyre};
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::Session;
use gobare_api::stream::{self, QueueSlot, StreamOptions, StreamTarget};
use gobare_api::text;
use std::io::Write;
use std::time::Duration;

/// The largest event exported (as `tail`: the app's own bound is for its screen).
const EXPORT_MAX_FRAME_BYTES: usize = 256 << 20;
/// Frames queued between the socket and the writer: enough to keep both busy, small
/// enough that a slow disk makes the socket wait rather than memory grow.
const EXPORT_QUEUED_BYTES: usize = 1 << 20;

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown for people.
    Markdown,
    /// One envelope per line, as sent (inert, redacted).
    JsonLines,
}

/// What the Markdown says of the session besides its events.
pub struct About<'a> {
    pub session_id: &'a str,
    /// Its title, when it has one.
    pub title: Option<&'a str>,
    /// How its turns came out and what they published, as it is read.
    pub facts: TurnFactsFeed,
}

/// How long the session is waited for before the export gives up.
const SESSION_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// Streams `session_id`'s history into the output `open` makes and commits it (a file
/// appears only when complete). The session is read while the stream opens, for its
/// title (else `fallback_title`) and to know where its history ends ([`Ends::for_session`]);
/// when it cannot be read, nothing is opened or written. `options` gives the server and
/// token; the rest is set here. Warnings (an unreadable event, a skipped frame, turns that
/// could not be read) go to `warn`.
pub(crate) async fn export(
    client: &ApiClient,
    options: StreamOptions,
    session_id: &str,
    format: Format,
    fallback_title: Option<&str>,
    open: impl FnOnce() -> Result<Output>,
    warn: impl Fn(&str),
) -> Result<HistoryRead> {
    // The stream opens while the session is read: a change after the stream opened comes
    // on it too, so the session's `updated_at` is reached either way (see `history`).
    let mut handle = stream::spawn_sharing(stream_options(options, session_id), client);
    let (session, newest_turn) = tokio::join!(
        read_session(client, session_id),
        newest_turn_started(client, session_id)
    );
    let session = session?;
    let ends = Ends::for_session(Some(&session)).reaching(newest_turn);
    let title = session.title.as_deref().or(fallback_title);
    let facts = match format {
        Format::Markdown => TurnFactsFeed::read(client, session_id),
        Format::JsonLines => TurnFactsFeed::none(),
    };
    let out = open()?;
    let about = About {
        session_id,
        title,
        facts,
    };
    let (read, out) = write(&mut handle.updates, ends, format, about, out, warn).await?;
    out.commit()?;
    Ok(read)
}

/// `options` (server, token) set to read `session_id`'s history for an export: from seq 0,
/// the export's frame and queue bounds, each envelope as sent and not decoded.
pub fn stream_options(mut options: StreamOptions, session_id: &str) -> StreamOptions {
    options.target = StreamTarget::Session(session_id.to_string());
    options.from = Some(0);
    options.max_frame_bytes = EXPORT_MAX_FRAME_BYTES;
    options.max_queued_bytes = EXPORT_QUEUED_BYTES;
    // JSON lines take the envelopes as sent, Markdown decodes each where it writes it (from
    // the head the stream read; [`gobare_api::stream::FrameRun::events`]).
    options.profile = gobare_api::stream::StreamProfile::RECORDED;
    options
}

/// Writes every persisted frame of `updates` to `out` in `format` until the history's
/// end (`history::read`), and hands `out` back flushed. The stream must have been
/// opened with [`stream_options`].
pub async fn write<W: Write + Send + 'static>(
    updates: &mut gobare_api::stream::Updates,
    ends: Ends,
    format: Format,
    about: About<'_>,
    out: W,
    warn: impl Fn(&str),
) -> Result<(HistoryRead, W)> {
    match format {
        Format::Markdown => {
            let About {
                session_id,
                title,
                facts: feed,
            } = about;
            let md = MarkdownWriter::new(out, session_id, title, TurnFacts::unknown())?;
            let mut writer = MarkdownThread::start(md, feed)?;
            let read = read_to_writer(updates, ends, &mut writer, &warn).await?;
            let out = writer.finish(&warn).await?;
            Ok((read, out))
        }
        Format::JsonLines => {
            let mut out = out;
            let read = history::read(
                updates,
                ends,
                |frame| {
                    out.write_all(envelope_line(&frame.data).as_bytes())?;
                    Ok(out.write_all(b"\n")?)
                },
                &warn,
            )
            .await?;
            out.flush()?;
            Ok((read, out))
        }
    }
}

/// Hands every persisted frame of the history to the Markdown `writer`, in batches of
/// what was queued (at most [`BATCH_FRAMES`] frames, about [`BATCH_BYTES`]), then its end.
async fn read_to_writer<W: Write + Send + 'static>(
    updates: &mut gobare_api::stream::Updates,
    ends: Ends,
    writer: &mut MarkdownThread<W>,
    warn: &impl Fn(&str),
) -> Result<HistoryRead> {
    let mut warn_here = |w: &str| warn(w);
    let mut history = History::new(updates, ends);
    let mut batch = Vec::new();
    let (mut batch_frames, mut batch_bytes) = (0, 0);
    while let Some(mut piece) = history.next_piece(&mut warn_here).await? {
        // Handed over, a frame leaves the stream's queue budget for the writer's own bounded
        // channel: a stream held up by the writer's backlog while this side waits for the
        // next frame would look quiet, and a quiet spell ends the history.
        match &mut piece {
            Piece::Frame(frame) => {
                frame.slot = QueueSlot::default();
                batch_frames += 1;
                batch_bytes += frame.data.len();
            }
            Piece::Run(run) => {
                run.release_share();
                batch_frames += run.len();
                batch_bytes += run.line_bytes();
            }
        }
        batch.push(piece);
        if batch_frames >= BATCH_FRAMES || batch_bytes >= BATCH_BYTES || history.drained() {
            (batch_frames, batch_bytes) = (0, 0);
            if !writer.send_pieces(std::mem::take(&mut batch)).await {
                // The writer's error comes from `finish`.
                return Ok(history.read());
            }
            writer.pass_warnings(warn);
        }
    }
    let read = history.read();
    if !batch.is_empty() {
        writer.send_pieces(batch).await;
    }
    writer.send_end(read).await;
    Ok(read)
}

/// The session as the stream opens: without it there is nothing to export.
/// When the newest turn that has started began (Unix ms), read as the stream opens: a point
/// the history must reach ([`Ends::reaching`]). Unreadable, there is no such point and the
/// history ends as it would without it.
pub(crate) async fn newest_turn_started(client: &ApiClient, session_id: &str) -> Option<i64> {
    let newest = Page::ordered(Order::Desc).with_limit(5);
    let turns = tokio::time::timeout(SESSION_READ_TIMEOUT, client.list_turns(session_id, &newest))
        .await
        .ok()?
        .ok()?;
    turns.data.iter().find_map(|turn| turn.started_at)
}

pub(crate) async fn read_session(client: &ApiClient, session_id: &str) -> Result<Session> {
    let shown = text::one_line(session_id, 60);
    match tokio::time::timeout(SESSION_READ_TIMEOUT, client.get_session(session_id)).await {
        Ok(read) => read.wrap_err_with(|| format!("cannot read session {shown}")),
        Err(_) => Err(eyre!(
            "cannot read session {shown}: no answer in {}s",
            SESSION_READ_TIMEOUT.as_secs()
        )),
    }
}
