//! `gobare-tui export`: a session's whole history, from seq 0 to its current end, as
//! Markdown or JSON lines, on stdout or into a file that appears only when complete.
//!
//! Events are read from the resumable stream (replay from 0, truncation followed by the
//! stream task) and written one at a time: memory stays flat whatever the session's size.

use crate::cli::{ExportArgs, ExportFormat};
use crate::config::Config;
use crate::export::history::{self, END_QUIET};
use crate::export::jsonl::envelope_line;
use crate::export::markdown::MarkdownWriter;
use crate::export::output::Output;
use color_eyre::eyre::{Result, WrapErr, bail};
use gobare_api::stream::{self, StreamTarget};
use gobare_api::text;
use std::io::Write;
use std::time::Duration;

/// The largest event exported (as `tail`: the app's own bound is for its screen).
const EXPORT_MAX_FRAME_BYTES: usize = 256 << 20;
/// Frames queued between the socket and the writer: enough to keep both busy, small
/// enough that a slow disk makes the socket wait rather than memory grow.
const EXPORT_QUEUED_BYTES: usize = 8 << 20;

pub(crate) async fn run(config: Config, args: ExportArgs) -> Result<()> {
    match export(config, args).await {
        // `export … | head`: the reader has what it wanted.
        Err(e) if is_broken_pipe(&e) => Ok(()),
        done => done,
    }
}

fn is_broken_pipe(report: &color_eyre::Report) -> bool {
    report.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

async fn export(config: Config, args: ExportArgs) -> Result<()> {
    config.require_token()?;
    let mut options =
        config.stream_options(StreamTarget::Session(args.session_id.clone()), Some(0))?;
    options.max_frame_bytes = EXPORT_MAX_FRAME_BYTES;
    options.max_queued_bytes = EXPORT_QUEUED_BYTES;
    // Markdown needs the decoded event, JSON lines only the envelope as sent.
    let markdown = args.format == ExportFormat::Md;
    options.decode_persisted = markdown;
    options.keep_data = !markdown;

    let title = if markdown {
        session_title(&config, &args.session_id).await
    } else {
        None
    };
    let out = Output::open(args.output.as_deref()).wrap_err("cannot create the output file")?;
    let mut handle = stream::spawn(options);
    let warn = |w: &str| eprintln!("gobare-tui: warning: {w}");
    let read = if markdown {
        let mut md = MarkdownWriter::new(out, &args.session_id, title.as_deref())?;
        let read = interruptible(history::read(
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
            warn,
        ))
        .await?;
        md.finish(read.events, read.last_seq)?.commit()?;
        read
    } else {
        let mut out = out;
        let read = interruptible(history::read(
            &mut handle.updates,
            END_QUIET,
            |frame| {
                out.write_all(envelope_line(&frame.data).as_bytes())?;
                Ok(out.write_all(b"\n")?)
            },
            warn,
        ))
        .await?;
        out.commit()?;
        read
    };
    if let Some(path) = &args.output {
        eprintln!(
            "gobare-tui: exported {} events to {}",
            read.events,
            text::one_line(&path.display().to_string(), 300)
        );
    }
    tracing::info!(events = read.events, last_seq = ?read.last_seq, end = ?read.end, "exported");
    Ok(())
}

/// The session's title for the document's heading; the export goes on without it.
async fn session_title(config: &Config, session_id: &str) -> Option<String> {
    let mut options = config.client_options();
    options.request_timeout = Some(Duration::from_secs(15));
    let client = gobare_api::client::ApiClient::new(options).ok()?;
    match client.get_session(session_id).await {
        Ok(session) => session.title,
        Err(e) => {
            tracing::warn!(error = %e, "no session title for the export");
            None
        }
    }
}

/// `reading` unless Ctrl+C or SIGTERM comes first (the partial file is then removed).
async fn interruptible<T>(reading: impl Future<Output = Result<T>>) -> Result<T> {
    tokio::select! {
        read = reading => read,
        () = crate::commands::tail::shutdown_signal() => bail!("interrupted"),
    }
}
