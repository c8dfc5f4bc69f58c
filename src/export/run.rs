//! One export, from the stream to its output: the history from seq 0 up to its current
//! end, written event by event as Markdown or JSON lines. Shared by `gobare-tui export`
//! and the app's export key; neither holds more than the stream's queue in memory.

use super::history::{self, END_QUIET, HistoryRead};
use super::jsonl::envelope_line;
use super::markdown::MarkdownWriter;
use super::output::Output;
use color_eyre::eyre::Result;
use gobare_api::stream::{self, StreamOptions, StreamTarget};
use gobare_api::text;
use std::io::Write;

/// The largest event exported (as `tail`: the app's own bound is for its screen).
const EXPORT_MAX_FRAME_BYTES: usize = 256 << 20;
/// Frames queued between the socket and the writer: enough to keep both busy, small
/// enough that a slow disk makes the socket wait rather than memory grow.
const EXPORT_QUEUED_BYTES: usize = 8 << 20;

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Markdown,
    JsonLines,
}

/// Streams `session_id`'s history into `out` and commits it (a file appears only when
/// complete). `options` gives the server and token; the rest is set here. Warnings (an
/// unreadable event, a skipped frame) go to `warn`.
pub(crate) async fn export(
    mut options: StreamOptions,
    session_id: &str,
    format: Format,
    title: Option<&str>,
    out: Output,
    warn: impl Fn(&str),
) -> Result<HistoryRead> {
    options.target = StreamTarget::Session(session_id.to_string());
    options.from = Some(0);
    options.max_frame_bytes = EXPORT_MAX_FRAME_BYTES;
    options.max_queued_bytes = EXPORT_QUEUED_BYTES;
    // Markdown needs the decoded event, JSON lines only the envelope as sent.
    let markdown = format == Format::Markdown;
    options.decode_persisted = markdown;
    options.keep_data = !markdown;
    let mut handle = stream::spawn(options);
    if markdown {
        let mut md = MarkdownWriter::new(out, session_id, title)?;
        let read = history::read(
            &mut handle.updates,
            END_QUIET,
            |frame| match &frame.event {
                Ok(event) => Ok(md.event(event)?),
                Err(e) => {
                    warn(&format!(
                        "event {} is not a readable envelope: {}",
                        frame.id.unwrap_or_default(),
                        text::one_line(&e.to_string(), 200)
                    ));
                    Ok(())
                }
            },
            &warn,
        )
        .await?;
        md.finish(read.events, read.last_seq)?.commit()?;
        Ok(read)
    } else {
        let mut out = out;
        let read = history::read(
            &mut handle.updates,
            END_QUIET,
            |frame| {
                out.write_all(envelope_line(&frame.data).as_bytes())?;
                Ok(out.write_all(b"\n")?)
            },
            &warn,
        )
        .await?;
        out.commit()?;
        Ok(read)
    }
}
