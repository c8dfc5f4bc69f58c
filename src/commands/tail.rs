//! `gobare-tui tail`: every frame's JSON on stdout, one line each, until Ctrl+C, SIGTERM,
//! a closed stdout, or a stream that gives up.
//!
//! The stream task owns reconnection and the cursor; this command only prints. Output is
//! buffered and flushed whenever the channel is momentarily empty, so a 50,000-event replay
//! is written in large blocks while a live stream still appears line by line.

use crate::cli::TailArgs;
use crate::commands::frame_line::one_line;
use crate::config::Config;
use color_eyre::eyre::{Result, WrapErr, bail};
use gobare_api::error::ApiErrorKind;
use gobare_api::stream::ConnectionState;
use gobare_api::stream::{self, StreamTarget, StreamUpdate};
use gobare_api::text;
use std::future::Future;
use std::io::{BufWriter, ErrorKind, Write};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// Most updates written between two looks at the shutdown signal.
const MAX_BURST: usize = 4096;

/// Why printing stopped without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TailEnd {
    /// Ctrl+C or SIGTERM.
    Interrupted,
    /// The reader of stdout went away (`tail | head`).
    StdoutClosed,
}

pub(crate) async fn run(config: Config, args: TailArgs) -> Result<()> {
    let target = match (args.org, args.session_id) {
        (true, _) => StreamTarget::Org { root: args.root },
        (false, Some(id)) => StreamTarget::Session(id),
        (false, None) => bail!(crate::cli::UsageError(
            "tail needs a SESSION_ID, or --org".into()
        )),
    };
    let mut options = config.stream_options(target, args.from)?;
    // Only the raw `data:` is printed; decoding each persisted frame was wasted work.
    options.decode_persisted = false;
    check_token(&config).await?;

    let mut handle = stream::spawn(options);
    let stdout = std::io::stdout();
    let out = BufWriter::with_capacity(64 * 1024, stdout.lock());
    let end = pump(
        &mut handle.updates,
        out,
        std::io::stderr(),
        config.verbose,
        shutdown_signal(),
    )
    .await?;
    tracing::info!(?end, "tail finished");
    Ok(())
}

/// Asks `/v1/health` first so a refused token is a clear, typed error rather than a
/// stream that fails later. Anything else (network, 5xx) is left to the stream's retries.
async fn check_token(config: &Config) -> Result<()> {
    let mut options = config.client_options();
    options.request_timeout = Some(Duration::from_secs(15));
    let client = gobare_api::client::ApiClient::new(options)?;
    match client.health().await {
        Ok(health) if health.usable == Some(false) => {
            let missing = text::one_line(&health.missing_scopes.join(", "), 200);
            eprintln!(
                "gobare-tui: warning: this token cannot use the API (missing scopes: {missing})"
            );
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(e) if matches!(e.kind, ApiErrorKind::Unauthorized | ApiErrorKind::Forbidden) => {
            Err(e.into())
        }
        Err(e) => {
            tracing::warn!(error = %e, "health check failed; opening the stream anyway");
            if config.verbose {
                eprintln!("gobare-tui: health check failed ({e}); opening the stream anyway");
            }
            Ok(())
        }
    }
}

/// Writes updates until `shutdown` resolves, stdout closes, or the stream fails.
/// Frames go to `out`; connection news goes to `err` when `verbose`.
pub(crate) async fn pump<W: Write, E: Write>(
    updates: &mut UnboundedReceiver<StreamUpdate>,
    mut out: W,
    mut err: E,
    verbose: bool,
    shutdown: impl Future<Output = ()>,
) -> Result<TailEnd> {
    tokio::pin!(shutdown);
    loop {
        let next = tokio::select! {
            biased;
            () = &mut shutdown => {
                let _ = out.flush();
                return Ok(TailEnd::Interrupted);
            }
            next = updates.recv() => next,
        };
        let Some(first) = next else {
            let _ = out.flush();
            bail!("the event stream stopped unexpectedly");
        };
        // Write what is already queued, up to a bound, then flush once.
        let mut pending = Some(first);
        let mut written = 0;
        while let Some(update) = pending.take() {
            if let Err(e) = write_update(update, &mut out, &mut err, verbose)? {
                return stdout_error(e);
            }
            written += 1;
            if written < MAX_BURST {
                pending = updates.try_recv().ok();
            }
        }
        if let Err(e) = out.flush() {
            return stdout_error(e);
        }
    }
}

/// Outer error: the stream failed (exit 1). Inner error: writing stdout failed.
fn write_update<W: Write, E: Write>(
    update: StreamUpdate,
    out: &mut W,
    err: &mut E,
    verbose: bool,
) -> Result<std::io::Result<()>> {
    match update {
        StreamUpdate::Frame(frame) => {
            let line = one_line(&frame.data);
            Ok(out
                .write_all(line.as_bytes())
                .and_then(|()| out.write_all(b"\n")))
        }
        StreamUpdate::Skipped { reason } => {
            let _ = writeln!(
                err,
                "gobare-tui: skipped a frame: {}",
                text::one_line(&reason, 300)
            );
            Ok(Ok(()))
        }
        StreamUpdate::Anomaly { reason } => {
            let _ = writeln!(err, "gobare-tui: warning: {}", text::one_line(&reason, 300));
            Ok(Ok(()))
        }
        StreamUpdate::State(ConnectionState::Failed { reason }) => {
            let _ = out.flush();
            bail!("the event stream failed: {}", text::one_line(&reason, 500))
        }
        StreamUpdate::State(state) => {
            if verbose {
                let _ = writeln!(err, "gobare-tui: {}", describe_state(&state));
            }
            tracing::info!(?state, "stream state");
            Ok(Ok(()))
        }
    }
}

fn stdout_error(e: std::io::Error) -> Result<TailEnd> {
    if e.kind() == ErrorKind::BrokenPipe {
        Ok(TailEnd::StdoutClosed)
    } else {
        Err(e).wrap_err("cannot write to stdout")
    }
}

fn describe_state(state: &ConnectionState) -> String {
    match state {
        ConnectionState::Connecting { attempt } => format!("connecting (attempt {attempt})"),
        ConnectionState::Live => "connected, following live".to_string(),
        ConnectionState::Retrying {
            in_ms,
            attempt,
            reason,
        } => format!(
            "reconnecting in {:.1}s (attempt {attempt}): {}",
            *in_ms as f64 / 1000.0,
            text::one_line(reason, 300)
        ),
        ConnectionState::Failed { reason } => format!("failed: {}", text::one_line(reason, 300)),
    }
}

/// Resolves on Ctrl+C or (on Unix) SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::Event;
    use gobare_api::stream::StreamFrame;
    use tokio::sync::mpsc;

    fn frame(id: Option<u64>, data: &str) -> StreamUpdate {
        StreamUpdate::Frame(StreamFrame {
            id,
            data: data.to_string(),
            event: Event::parse(data),
        })
    }

    /// A writer that records each flush, to check that bursts are flushed once.
    #[derive(Default)]
    struct Recorder {
        pending: Vec<u8>,
        flushed: Vec<String>,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.pending.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            if !self.pending.is_empty() {
                self.flushed
                    .push(String::from_utf8(std::mem::take(&mut self.pending)).unwrap());
            }
            Ok(())
        }
    }

    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(ErrorKind::BrokenPipe.into())
        }
    }

    const PERSISTED: &str =
        r#"{"object":"event","type":"agent.message","seq":7,"payload":{"text":"done"}}"#;
    const TRANSIENT: &str =
        r#"{"object":"event","type":"agent.text","seq":null,"payload":{"delta":"d"}}"#;

    #[tokio::test]
    async fn prints_each_frame_as_one_line_and_flushes_per_burst() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        tx.send(frame(None, TRANSIENT)).unwrap();
        tx.send(frame(None, "{\"multi\":\n1}")).unwrap();
        drop(tx);
        let mut out = Recorder::default();
        let mut err = Vec::new();
        let result = pump(&mut rx, &mut out, &mut err, false, std::future::pending()).await;
        assert!(
            result
                .unwrap_err()
                .to_string()
                .contains("stopped unexpectedly")
        );
        assert_eq!(
            out.flushed,
            vec![format!("{PERSISTED}\n{TRANSIENT}\n{{\"multi\":1}}\n")]
        );
        assert!(err.is_empty(), "state news only with --verbose");
    }

    #[tokio::test]
    async fn a_burst_longer_than_the_flush_bound_loses_nothing() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let total = MAX_BURST * 2 + 3;
        for seq in 1..=total {
            let data = format!(r#"{{"type":"x","seq":{seq}}}"#);
            tx.send(frame(Some(seq as u64), &data)).unwrap();
        }
        drop(tx);
        let mut out = Recorder::default();
        let _ = pump(&mut rx, &mut out, Vec::new(), false, std::future::pending()).await;
        let text = out.flushed.concat();
        let seqs: Vec<usize> = text
            .lines()
            .map(|l| {
                l.trim_start_matches(r#"{"type":"x","seq":"#)
                    .trim_end_matches('}')
                    .parse()
                    .unwrap()
            })
            .collect();
        assert_eq!(seqs, (1..=total).collect::<Vec<_>>());
        assert_eq!(out.flushed.len(), 3, "one flush per bounded burst");
    }

    #[tokio::test]
    async fn verbose_reports_reconnects_on_stderr_only() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(StreamUpdate::State(ConnectionState::Retrying {
            in_ms: 2000,
            attempt: 2,
            reason: "connection reset\x1b[31m".into(),
        }))
        .unwrap();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let mut out = Vec::new();
        let mut err = Vec::new();
        let end = {
            let pumping = pump(&mut rx, &mut out, &mut err, true, async {
                let _ = stop_rx.await;
            });
            tokio::pin!(pumping);
            // Let the queued burst be written, then ask it to stop.
            tokio::select! {
                biased;
                _ = &mut pumping => panic!("stopped early"),
                () = tokio::task::yield_now() => {}
            }
            stop_tx.send(()).unwrap();
            pumping.await.unwrap()
        };
        assert_eq!(end, TailEnd::Interrupted);
        assert_eq!(String::from_utf8(out).unwrap(), format!("{PERSISTED}\n"));
        let err = String::from_utf8(err).unwrap();
        assert!(
            err.contains("reconnecting in 2.0s (attempt 2): connection reset"),
            "{err}"
        );
        assert!(!err.contains('\x1b'));
    }

    #[tokio::test]
    async fn failed_state_is_an_error_with_the_reason() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(StreamUpdate::State(ConnectionState::Failed {
            reason: "401 authentication_error".into(),
        }))
        .unwrap();
        let err = pump(
            &mut rx,
            Vec::new(),
            Vec::new(),
            false,
            std::future::pending(),
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("401 authentication_error"));
    }

    #[tokio::test]
    async fn closed_stdout_ends_quietly() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        let end = pump(
            &mut rx,
            ClosedPipe,
            Vec::new(),
            false,
            std::future::pending(),
        )
        .await
        .unwrap();
        assert_eq!(end, TailEnd::StdoutClosed);
    }

    #[tokio::test]
    async fn shutdown_wins_over_a_waiting_stream() {
        let (_tx, mut rx) = mpsc::unbounded_channel::<StreamUpdate>();
        let end = pump(&mut rx, Vec::new(), Vec::new(), false, async {})
            .await
            .unwrap();
        assert_eq!(end, TailEnd::Interrupted);
    }
}
