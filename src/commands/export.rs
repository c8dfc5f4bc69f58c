//! `gobare-tui export`: a session's whole history, from seq 0 to its current end, as
//! Markdown or JSON lines, on stdout or into a file that appears only when complete.
//! The id may be any unique prefix of it; nothing is written until the session is found.
//!
//! Events are read from the resumable stream (replay from 0, truncation followed by the
//! stream task) and written one at a time: memory stays flat whatever the session's size.
//! Where the history ends is decided in [`crate::export::history`].

use crate::cli::{ExportArgs, ExportFormat};
use crate::config::Config;
use crate::export::output::Output;
use crate::export::run::{self, Format};
use color_eyre::eyre::{Result, WrapErr, bail};
use gobare_api::stream::StreamTarget;
use gobare_api::text;

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
    let session_id = super::session_id::resolve(&config, &args.session_id).await?;
    let options = config.stream_options(StreamTarget::Session(session_id.clone()), Some(0))?;
    let format = match args.format {
        ExportFormat::Md => Format::Markdown,
        ExportFormat::Jsonl => Format::JsonLines,
    };
    let client = gobare_api::client::ApiClient::new(config.client_options())?
        .with_class(gobare_api::schedule::RequestClass::Bulk);
    let open = || Output::open(args.output.as_deref()).wrap_err("cannot create the output file");
    let warn = |w: &str| eprintln!("gobare-tui: warning: {w}");
    let read = interruptible(run::export(
        &client,
        options,
        &session_id,
        format,
        None,
        open,
        warn,
    ))
    .await?;
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

/// `reading` unless Ctrl+C or SIGTERM comes first (the partial file is then removed).
async fn interruptible<T>(reading: impl Future<Output = Result<T>>) -> Result<T> {
    tokio::select! {
        read = reading => read,
        () = crate::commands::tail::shutdown_signal() => bail!("interrupted"),
    }
}
