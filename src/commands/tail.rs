//! `gobare-tui tail`: every frame's JSON on stdout, one line each, until Ctrl+C, SIGTERM,
//! a closed stdout, or a stream that gives up.
//!
//! The stream task owns reconnection and the cursor; this command only prints. What is
//! already queued is gathered into one burst and written at once (the frames' data as
//! received, copied once into one block; the frames of a chunk in the server's usual shape
//! come as one run, see `StreamProfile::PRINTED`), so a 50,000-event replay is written
//! in large blocks while a live stream still appears line by line. Writes
//! are asynchronous and raced against the stop signals: a reader that stops reading (a full
//! pipe) cannot keep SIGTERM from being honoured, and a reader that goes away is noticed
//! at once (a hang-up poll on stdout), even on a session where nothing happens.

use crate::cli::TailArgs;
use crate::commands::session_id;
use crate::config::Config;
use crate::export::frame_line::one_line;
use bytes::Bytes;
use color_eyre::eyre::{Result, WrapErr, bail};
use gobare_api::error::ApiErrorKind;
use gobare_api::stream::ConnectionState;
use gobare_api::stream::{self, FrameRun, StreamTarget, StreamUpdate};
use gobare_api::text;
use std::borrow::Cow;
use std::future::Future;
use std::io::{ErrorKind, Write};
use std::time::Duration;
#[cfg(test)]
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Most updates gathered into one block between two looks at the stop signals.
const MAX_BURST: usize = 4096;
/// Most bytes gathered into one burst (frames may be megabytes each).
const MAX_BURST_BYTES: usize = 256 * 1024;
/// The end of every line printed.
const NEWLINE: Bytes = Bytes::from_static(b"\n");

/// Most frame bytes `tail` holds between the socket and stdout (a few bursts).
const TAIL_MAX_QUEUED_BYTES: usize = 4 * MAX_BURST_BYTES;

/// The largest frame `tail` prints.
const TAIL_MAX_FRAME_BYTES: usize = 256 << 20;

/// Why printing stopped without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TailEnd {
    /// Ctrl+C or SIGTERM.
    Interrupted,
    /// The reader of stdout went away (`tail | head`).
    StdoutClosed,
}

pub(crate) async fn run(config: Config, args: TailArgs) -> Result<()> {
    config.require_token()?;
    keep_freed_heap();
    widen_stdout_pipe();
    if !args.org && args.session_id.is_none() {
        bail!(crate::cli::UsageError(
            "tail needs a SESSION_ID, or --org".into()
        ));
    }
    let stop = async {
        tokio::select! {
            () = shutdown_signal() => TailEnd::Interrupted,
            () = stdout_hangup() => TailEnd::StdoutClosed,
        }
    };
    tokio::pin!(stop);
    let client = tokio::select! {
        biased;
        end = &mut stop => {
            tracing::info!(?end, "tail finished before the stream opened");
            return Ok(());
        }
        checked = check_token(&config) => checked?,
    };
    // After the token check, so a refused token is reported as such rather than as a
    // failed session list.
    let target = tokio::select! {
        biased;
        end = &mut stop => {
            tracing::info!(?end, "tail finished before the stream opened");
            return Ok(());
        }
        target = target(&config, &args) => target?,
    };
    let mut options = config.stream_options(target, args.from)?;
    // Only the raw `data:` is printed, a run's at a time (printable ASCII on one line).
    options.profile = gobare_api::stream::StreamProfile::PRINTED;
    // Frames wait in the socket rather than in memory: a queue longer than a few bursts
    // only makes stdout's writer trail the reader through memory that is new each time
    // (page faults), and a reader of stdout slower than the socket is the rule.
    options.max_queued_bytes = TAIL_MAX_QUEUED_BYTES;
    // Every persisted event is printed, however large (the app's bound is for its screen
    // and memory); a frame past even this bound stops `tail` with its seq.
    options.max_frame_bytes = TAIL_MAX_FRAME_BYTES;

    // On the health check's client: its connection is open and TLS is set up once.
    let mut handle = stream::spawn_sharing(options, &client);
    let end = pump(
        &mut handle.updates,
        BlockingStdout::default(),
        std::io::stderr(),
        config.verbose,
        stop,
    )
    .await?;
    tracing::info!(?end, "tail finished");
    Ok(())
}

/// Most heap glibc keeps mapped above what is in use when it gives memory back.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD_BYTES: i32 = 8 << 20;

/// The socket's reads land in buffers that hyper allocates anew for each (up to ~408 KiB:
/// the last one is still held by frames not yet written), freed once written. By default
/// glibc gives much of that memory back to the kernel, and the next buffers fault in fresh
/// zeroed pages (1,500–3,000 page faults on a 57 MB replay, ~350 with this): keeping a few
/// MiB of freed heap mapped lets them reuse it.
fn keep_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets one of glibc's tuning parameters.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD_BYTES);
    }
}

/// A pipe's room when stdout is one (the system's default bound for an unprivileged process).
#[cfg(any(target_os = "linux", target_os = "android"))]
const STDOUT_PIPE_BYTES: i32 = 1 << 20;

/// Widens stdout's pipe (64 KiB by default): the writer otherwise sleeps and is woken
/// several times per burst while the reader drains it. Anything but a pipe, or a refusal,
/// is left as it is.
fn widen_stdout_pipe() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: fstat fills the zeroed struct it is given; F_SETPIPE_SZ only resizes a pipe.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        if libc::fstat(libc::STDOUT_FILENO, &mut stat) == 0
            && stat.st_mode & libc::S_IFMT == libc::S_IFIFO
        {
            libc::fcntl(libc::STDOUT_FILENO, libc::F_SETPIPE_SZ, STDOUT_PIPE_BYTES);
        }
    }
}

/// What to follow, with session ids typed as prefixes resolved to full ones.
async fn target(config: &Config, args: &TailArgs) -> Result<StreamTarget> {
    Ok(match (&args.session_id, &args.root) {
        (Some(id), _) => StreamTarget::Session(session_id::resolve(config, id).await?),
        (None, Some(root)) => StreamTarget::Org {
            root: Some(session_id::resolve(config, root).await?),
        },
        (None, None) => StreamTarget::Org { root: None },
    })
}

/// Asks `/v1/health` first so a refused token is a clear, typed error rather than a
/// stream that fails later. Anything else (network, 5xx) is left to the stream's retries.
/// Hands back the client it asked with, for the stream to share.
async fn check_token(config: &Config) -> Result<gobare_api::client::ApiClient> {
    let mut options = config.client_options();
    options.request_timeout = Some(Duration::from_secs(15));
    let client = gobare_api::client::ApiClient::new(options)?;
    match client.health().await {
        Ok(health) if health.usable == Some(false) => {
            let missing = text::one_line(&health.missing_scopes.join(", "), 200);
            eprintln!(
                "gobare-tui: warning: this token cannot use the API (missing scopes: {missing})"
            );
            Ok(client)
        }
        Ok(_) => Ok(client),
        Err(e) if matches!(e.kind, ApiErrorKind::Unauthorized | ApiErrorKind::Forbidden) => {
            Err(e.into())
        }
        Err(e) => {
            tracing::warn!(error = %e, "health check failed; opening the stream anyway");
            if config.verbose {
                eprintln!("gobare-tui: health check failed ({e}); opening the stream anyway");
            }
            Ok(client)
        }
    }
}

/// What `pump` has said on stderr so far.
#[derive(Debug, Default)]
struct Reported {
    /// The stream was open at least once.
    live: bool,
    /// A failure to open it was reported (only the first is, without `--verbose`).
    failure: bool,
    /// A connection that says nothing was reported (once, without `--verbose`).
    silence: bool,
}

/// Where [`pump`] prints: each burst is handed over whole, as the pieces of its lines in
/// order, and handed back (emptied, for reuse) once written and flushed.
pub(crate) trait Lines {
    fn write_lines(
        &mut self,
        lines: Vec<Piece>,
    ) -> impl Future<Output = std::io::Result<Vec<Piece>>>;
}

/// A piece of a burst: bytes, or the lines of a run of frames (each frame's data and its
/// line end, as received).
#[derive(Debug)]
pub(crate) enum Piece {
    Bytes(Bytes),
    Run(FrameRun),
}

/// Any [`AsyncWrite`] as [`Lines`] (the tests' writers).
#[cfg(test)]
pub(crate) struct AsyncLines<W>(pub(crate) W);

#[cfg(test)]
impl<W: AsyncWrite + Unpin> Lines for AsyncLines<W> {
    async fn write_lines(&mut self, mut lines: Vec<Piece>) -> std::io::Result<Vec<Piece>> {
        for piece in &lines {
            match piece {
                Piece::Bytes(bytes) => self.0.write_all(bytes).await?,
                Piece::Run(run) => {
                    for line in run.lines() {
                        self.0.write_all(line).await?;
                    }
                }
            }
        }
        self.0.flush().await?;
        lines.clear();
        Ok(lines)
    }
}

/// Writes updates until `stop` resolves, stdout closes, or the stream fails.
/// Frames go to `out`; the first failure to connect, and with `verbose` all connection
/// news, go to `err`.
pub(crate) async fn pump<E: Write>(
    updates: &mut gobare_api::stream::Updates,
    mut out: impl Lines,
    mut err: E,
    verbose: bool,
    stop: impl Future<Output = TailEnd>,
) -> Result<TailEnd> {
    tokio::pin!(stop);
    let mut lines = Vec::new();
    let mut reported = Reported::default();
    loop {
        let next = tokio::select! {
            biased;
            end = &mut stop => return Ok(end),
            next = updates.recv() => next,
        };
        let Some(first) = next else {
            bail!("the event stream stopped unexpectedly");
        };
        // Gather what is already queued, up to a bound, then write it at once.
        lines.clear();
        let mut pending = Some(first);
        let mut gathered = 0;
        let mut bytes = 0;
        let mut failed = None;
        while let Some(update) = pending.take() {
            gathered += update.count();
            if let Err(e) = write_update(
                update,
                &mut lines,
                &mut bytes,
                &mut err,
                verbose,
                &mut reported,
            ) {
                failed = Some(e);
                break;
            }
            if gathered < MAX_BURST && bytes < MAX_BURST_BYTES {
                pending = updates.try_recv().ok();
            }
        }
        if !lines.is_empty() {
            let written = out.write_lines(std::mem::take(&mut lines));
            tokio::select! {
                biased;
                end = &mut stop => return Ok(end),
                written = written => match written {
                    Ok(back) => lines = back,
                    Err(e) => return stdout_error(e),
                },
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
    }
}

/// Adds a frame's line to `lines` (its data as received when it is one inert line
/// already) and its length to `bytes`; reports states on `err`. An error: the stream failed
/// (exit 1).
fn write_update<E: Write>(
    update: StreamUpdate,
    lines: &mut Vec<Piece>,
    bytes: &mut usize,
    err: &mut E,
    verbose: bool,
    reported: &mut Reported,
) -> Result<()> {
    match update {
        StreamUpdate::Run(run) => {
            *bytes += run.line_bytes();
            lines.push(Piece::Run(run));
            Ok(())
        }
        StreamUpdate::Frame(frame) => {
            let rewritten = match one_line(&frame.data) {
                Cow::Borrowed(_) => None,
                Cow::Owned(line) => Some(line),
            };
            let line = match rewritten {
                None => frame.data.into_bytes(),
                Some(line) => Bytes::from(line),
            };
            *bytes += line.len() + 1;
            lines.push(Piece::Bytes(line));
            lines.push(Piece::Bytes(NEWLINE));
            Ok(())
        }
        StreamUpdate::Skipped { reason } => {
            let _ = writeln!(
                err,
                "gobare-tui: skipped a frame: {}",
                text::one_line(&reason, 300)
            );
            Ok(())
        }
        StreamUpdate::Lost { seq, reason } => {
            // Skipping it silently would make the output look complete.
            bail!(
                "event {seq} could not be printed ({}); stopping rather than leave a gap",
                text::one_line(&reason, 300)
            )
        }
        StreamUpdate::Anomaly { reason } => {
            let _ = writeln!(err, "gobare-tui: warning: {}", text::one_line(&reason, 300));
            Ok(())
        }
        StreamUpdate::State(ConnectionState::Failed { reason }) => {
            bail!("the event stream failed: {}", text::one_line(&reason, 500))
        }
        StreamUpdate::State(state) => {
            if verbose {
                let _ = writeln!(err, "gobare-tui: {}", describe_state(&state));
            } else if let ConnectionState::Open { silent_before } = &state {
                // Connected but silent: without a word this reads as an idle session.
                if *silent_before > 0 && !reported.silence {
                    reported.silence = true;
                    let _ = writeln!(
                        err,
                        "gobare-tui: the event stream connects but sends nothing, not even \
                         a keep-alive ({silent_before} silent connection(s) so far; a \
                         buffering proxy?); still trying"
                    );
                }
            } else if let ConnectionState::Retrying { reason, .. } = &state {
                // Silence would look like an idle session: say once that the stream cannot
                // be opened. Later attempts (and drops once it was open) stay quiet.
                if !reported.live && !reported.failure {
                    reported.failure = true;
                    let _ = writeln!(
                        err,
                        "gobare-tui: cannot open the event stream ({}); still trying \
                         (--verbose reports each attempt)",
                        text::one_line(reason, 300)
                    );
                }
            }
            if state == ConnectionState::Live {
                reported.live = true;
            }
            tracing::info!(?state, "stream state");
            Ok(())
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
        ConnectionState::Open { silent_before: 0 } => {
            "connected; nothing received yet (not live until a frame or a ping)".to_string()
        }
        ConnectionState::Open { silent_before } => format!(
            "connected; nothing received yet, after {silent_before} connection(s) that said \
             nothing"
        ),
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

/// Stdout as [`Lines`]: each burst is written (and flushed) on the blocking pool, so a
/// reader that stops reading parks that thread, not the task that watches for signals.
/// The burst moves there whole and is copied once, into `block` (kept for the next).
#[derive(Default)]
struct BlockingStdout {
    block: Vec<u8>,
}

impl Lines for BlockingStdout {
    async fn write_lines(&mut self, mut lines: Vec<Piece>) -> std::io::Result<Vec<Piece>> {
        let mut block = std::mem::take(&mut self.block);
        let written = tokio::task::spawn_blocking(move || -> std::io::Result<_> {
            let mut out = std::io::stdout().lock();
            write_gathered(&mut out, &lines, &mut block)?;
            out.flush()?;
            lines.clear();
            Ok((lines, block))
        });
        let (lines, block) = written.await.map_err(std::io::Error::other)??;
        self.block = block;
        Ok(lines)
    }
}

/// Pieces at least this long are written as they lie rather than copied into the block.
const WRITTEN_IN_PLACE_BYTES: usize = 64 * 1024;

/// Writes every byte of `parts`, in order: the lines gathered into `block` and written as
/// one (a pipe takes one large write for less than a vectored one of ~250-byte lines, which
/// the kernel copies one by one), a piece of [`WRITTEN_IN_PLACE_BYTES`] or more as it is
/// (so the block stays within a burst's small pieces).
fn write_gathered(
    out: &mut impl Write,
    parts: &[Piece],
    block: &mut Vec<u8>,
) -> std::io::Result<()> {
    block.clear();
    let mut put = |bytes: &[u8]| {
        if bytes.len() < WRITTEN_IN_PLACE_BYTES {
            block.extend_from_slice(bytes);
            return Ok(());
        }
        out.write_all(block)?;
        block.clear();
        out.write_all(bytes)
    };
    for part in parts {
        match part {
            Piece::Bytes(bytes) => put(bytes)?,
            Piece::Run(run) => run.lines().try_for_each(&mut put)?,
        }
    }
    out.write_all(block)
}

/// Resolves when stdout's reader has gone away (a pipe whose reader closed, a terminal
/// that hung up); never for a file or `/dev/null`. Watched by a thread blocked in `poll`
/// asking for no event at all, which still reports `POLLERR`/`POLLHUP`.
async fn stdout_hangup() {
    #[cfg(unix)]
    {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("stdout-hangup".into())
            .spawn(move || {
                loop {
                    let mut fd = libc::pollfd {
                        fd: libc::STDOUT_FILENO,
                        events: 0,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd, the count says one.
                    let n = unsafe { libc::poll(&mut fd, 1, -1) };
                    if n < 0 {
                        if std::io::Error::last_os_error().kind() == ErrorKind::Interrupted {
                            continue;
                        }
                        return;
                    }
                    if fd.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
                        let _ = tx.send(());
                        return;
                    }
                    if fd.revents & libc::POLLNVAL != 0 {
                        return;
                    }
                }
            });
        if spawned.is_ok() && rx.await.is_ok() {
            return;
        }
    }
    std::future::pending::<()>().await
}

/// Resolves on Ctrl+C or (on Unix) SIGTERM.
pub(crate) async fn shutdown_signal() {
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
    use std::pin::Pin;
    use std::task::{Context, Poll};

    fn frame(id: Option<u64>, data: &str) -> StreamUpdate {
        StreamUpdate::Frame(StreamFrame {
            id,
            data: data.into(),
            event: Event::parse(data),
            created_at: None,
            slot: Default::default(),
        })
    }

    /// A writer that records each flush, to check that bursts are flushed once.
    #[derive(Default)]
    struct Recorder {
        pending: Vec<u8>,
        flushed: Vec<String>,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            self.pending.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            if !self.pending.is_empty() {
                let text = String::from_utf8(std::mem::take(&mut self.pending)).unwrap();
                self.flushed.push(text);
            }
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    struct ClosedPipe;

    impl AsyncWrite for ClosedPipe {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            Poll::Ready(Err(ErrorKind::BrokenPipe.into()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Err(ErrorKind::BrokenPipe.into()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    /// A pipe nobody reads: every write stays pending. Says when the first write began.
    struct FullPipe(Option<tokio::sync::oneshot::Sender<()>>);

    impl AsyncWrite for FullPipe {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
            Poll::Pending
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Pending
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Pending
        }
    }

    const PERSISTED: &str =
        r#"{"object":"event","type":"agent.message","seq":7,"payload":{"text":"done"}}"#;
    const TRANSIENT: &str =
        r#"{"object":"event","type":"agent.text","seq":null,"payload":{"delta":"d"}}"#;

    /// Small pieces are gathered, a large one is written in place, and the bytes are the
    /// pieces' in order either way.
    #[test]
    fn a_burst_is_written_whole_and_in_order() {
        let large = Bytes::from(vec![b'x'; WRITTEN_IN_PLACE_BYTES]);
        let parts = vec![
            Piece::Bytes(Bytes::from_static(b"a")),
            Piece::Bytes(NEWLINE),
            Piece::Bytes(large.clone()),
            Piece::Bytes(NEWLINE),
            Piece::Bytes(Bytes::from_static(b"b\n")),
        ];
        let mut out = Vec::new();
        let mut block = b"left over".to_vec();
        write_gathered(&mut out, &parts, &mut block).unwrap();
        let mut expected = b"a\n".to_vec();
        expected.extend_from_slice(&large);
        expected.extend_from_slice(b"\nb\n");
        assert_eq!(out, expected);
    }

    #[tokio::test]
    async fn prints_each_frame_as_one_line_and_flushes_per_burst() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        tx.send(frame(None, TRANSIENT)).unwrap();
        tx.send(frame(None, "{\"multi\":\n1}")).unwrap();
        drop(tx);
        let mut out = Recorder::default();
        let mut err = Vec::new();
        let result = pump(
            &mut rx,
            AsyncLines(&mut out),
            &mut err,
            false,
            std::future::pending(),
        )
        .await;
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
        let (tx, mut rx) = gobare_api::stream::channel();
        let total = MAX_BURST * 2 + 3;
        for seq in 1..=total {
            let data = format!(r#"{{"type":"x","seq":{seq}}}"#);
            tx.send(frame(Some(seq as u64), &data)).unwrap();
        }
        drop(tx);
        let mut out = Recorder::default();
        let _ = pump(
            &mut rx,
            AsyncLines(&mut out),
            Vec::new(),
            false,
            std::future::pending(),
        )
        .await;
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
        let (tx, mut rx) = gobare_api::stream::channel();
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
            let pumping = pump(&mut rx, AsyncLines(&mut out), &mut err, true, async {
                let _ = stop_rx.await;
                TailEnd::Interrupted
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
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Failed {
            reason: "401 authentication_error".into(),
        }))
        .unwrap();
        let err = pump(
            &mut rx,
            AsyncLines(Vec::new()),
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
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        let end = pump(
            &mut rx,
            AsyncLines(ClosedPipe),
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
        let (_tx, mut rx) = gobare_api::stream::channel();
        let end = pump(&mut rx, AsyncLines(Vec::new()), Vec::new(), false, async {
            TailEnd::Interrupted
        })
        .await
        .unwrap();
        assert_eq!(end, TailEnd::Interrupted);
    }

    #[tokio::test]
    async fn a_persisted_event_that_cannot_be_printed_stops_with_its_seq() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        tx.send(StreamUpdate::Lost {
            seq: 8,
            reason: "frame of 300000000 bytes exceeds the 268435456 byte limit".into(),
        })
        .unwrap();
        tx.send(frame(Some(9), PERSISTED)).unwrap();
        let mut out = Vec::new();
        let e = pump(
            &mut rx,
            AsyncLines(&mut out),
            Vec::new(),
            false,
            std::future::pending(),
        )
        .await
        .unwrap_err();
        assert!(
            e.to_string().contains("event 8 could not be printed"),
            "{e}"
        );
        // What came before it is printed; nothing after it pretends there was no gap.
        assert_eq!(String::from_utf8(out).unwrap(), format!("{PERSISTED}\n"));
    }

    #[tokio::test]
    async fn a_hang_up_ends_an_idle_stream() {
        let (_tx, mut rx) = gobare_api::stream::channel();
        let (hup_tx, hup_rx) = tokio::sync::oneshot::channel::<()>();
        let pumping = pump(&mut rx, AsyncLines(Vec::new()), Vec::new(), false, async {
            let _ = hup_rx.await;
            TailEnd::StdoutClosed
        });
        hup_tx.send(()).unwrap();
        assert_eq!(pumping.await.unwrap(), TailEnd::StdoutClosed);
    }

    #[tokio::test]
    async fn the_stop_signal_wins_over_a_write_that_cannot_finish() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(frame(Some(7), PERSISTED)).unwrap();
        let (began_tx, began_rx) = tokio::sync::oneshot::channel();
        // The signal arrives only once the write is blocked.
        let end = pump(
            &mut rx,
            AsyncLines(FullPipe(Some(began_tx))),
            Vec::new(),
            false,
            async {
                began_rx.await.unwrap();
                TailEnd::Interrupted
            },
        )
        .await
        .unwrap();
        assert_eq!(end, TailEnd::Interrupted);
    }

    #[tokio::test]
    async fn the_first_failure_to_connect_is_reported_once_without_verbose() {
        let retrying = |reason: &str| {
            StreamUpdate::State(ConnectionState::Retrying {
                in_ms: 1000,
                attempt: 2,
                reason: reason.into(),
            })
        };
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Connecting {
            attempt: 1,
        }))
        .unwrap();
        tx.send(retrying("network error: connection refused\x1b[2J"))
            .unwrap();
        tx.send(retrying("network error: connection refused again"))
            .unwrap();
        drop(tx);
        let mut err = Vec::new();
        let _ = pump(
            &mut rx,
            AsyncLines(Vec::new()),
            &mut err,
            false,
            std::future::pending(),
        )
        .await;
        let err = String::from_utf8(err).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("cannot open the event stream (network error: connection refused"),
            "{err}"
        );
        assert!(!err.contains('\x1b'), "{err}");

        // A drop after the stream was open is resumed silently.
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        tx.send(retrying("the server closed the stream")).unwrap();
        drop(tx);
        let mut err = Vec::new();
        let _ = pump(
            &mut rx,
            AsyncLines(Vec::new()),
            &mut err,
            false,
            std::future::pending(),
        )
        .await;
        assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    }
}
