//! Parse the command line, load configuration, start logging to a file, run exactly one
//! command, and turn its outcome into an exit status (0 ok, 1 runtime, 2 usage/config).

use crate::cli::CliCommand;
use crate::commands::{self, exit};
use crate::config::Config;
use crate::store::private_fs;
use color_eyre::Result;
use std::io::Write;
use std::process::ExitCode;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};

/// Log lines waiting for the log's writer thread at most (past that, lines are dropped
/// rather than the app held up).
const LOG_LINES_QUEUED: usize = 8_192;

/// Runs the command line: the binary's `main`.
pub fn main() -> ExitCode {
    let cli = crate::cli::parse();
    let verbose = cli.global.verbose;
    // Reports are shown only in full with --verbose; a failure is one line otherwise.
    let _ = color_eyre::config::HookBuilder::default()
        .display_env_section(verbose)
        .install();

    let config = match Config::load(&cli.global) {
        Ok(config) => config,
        Err(e) => return fail(exit::USAGE_ERROR, &e.to_string()),
    };
    // Someone else's state directory is refused before anything is written in it.
    if let Err(e) = private_fs::private_dirs(&config.state_dir, &[])
        && private_fs::is_refusal(&e)
    {
        return fail(exit::RUNTIME_ERROR, &e.to_string());
    }
    let command = cli.command.as_ref().map_or("start", CliCommand::name);
    let _log_guard = start_logging(&config, command);

    // `tail` only moves frames from the socket to stdout, `export` from the socket to a
    // buffered file, `artifacts` bytes from the socket to a file (written on a blocking
    // thread in large batches): one thread spares a cross-thread wakeup per chunk between
    // the connection task and its reader.
    let one_thread = matches!(
        cli.command,
        Some(CliCommand::Tail(_) | CliCommand::Export(_) | CliCommand::Artifacts(_))
    );
    let mut builder = if one_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            return fail(
                exit::RUNTIME_ERROR,
                &format!("cannot start the async runtime: {e}"),
            );
        }
    };
    let outcome = runtime.block_on(run(cli.command, config));
    // Don't wait for tasks still parked on a socket or stdin.
    runtime.shutdown_background();

    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            let failure = exit::classify(&report);
            tracing::error!(code = failure.code, message = %failure.message, "command failed");
            if verbose {
                let _ = writeln!(std::io::stderr(), "{report:?}");
            }
            fail(failure.code, &failure.message)
        }
    }
}

async fn run(command: Option<CliCommand>, config: Config) -> Result<()> {
    match command {
        None => commands::start::run(config).await,
        Some(CliCommand::Artifacts(args)) => commands::artifacts::run(config, args).await,
        Some(CliCommand::Attach(args)) => commands::attach::run(config, args).await,
        Some(CliCommand::List(args)) => commands::list::run(config, args).await,
        Some(CliCommand::Fleet(args)) => commands::fleet::run(config, args).await,
        Some(CliCommand::New(args)) => commands::new::run(config, args).await,
        Some(CliCommand::Demo(args)) => commands::demo::run(config, args.fresh).await,
        Some(CliCommand::Tail(args)) => commands::tail::run(config, args).await,
        Some(CliCommand::Export(args)) => commands::export::run(config, args).await,
        Some(CliCommand::Diff(args)) => commands::diff::run(config, args).await,
        Some(CliCommand::Follow(args)) => commands::follow::run(config, args).await,
        Some(CliCommand::Sim(args)) => commands::sim::run(args).await,
        Some(CliCommand::Report(args)) => commands::report::run(config, args).await,
        Some(CliCommand::Send(args)) => commands::send::run(config, args).await,
        Some(CliCommand::Cancel(args)) => commands::cancel::run(config, args).await,
        Some(CliCommand::Answer(args)) => commands::answer::run(config, args).await,
        Some(CliCommand::Wait(args)) => commands::wait::run(config, args).await,
        Some(CliCommand::Inbox(args)) => commands::inbox::run(config, args).await,
        Some(CliCommand::Rules(args)) => commands::rules::run(config, args).await,
    }
}

/// Says why on stderr, if anyone is listening: `eprintln!` would panic on a failed write
/// (stderr a terminal that went away, a closed pipe), turning a clean failure into a crash.
fn fail(code: u8, message: &str) -> ExitCode {
    if !message.is_empty() {
        let _ = writeln!(std::io::stderr(), "gobare-tui: error: {message}");
    }
    ExitCode::from(code)
}

/// Logs go to daily files under the state directory, never to the terminal (the UI owns
/// it and `tail` owns stdout). A log directory that cannot be created means no logs, not
/// a failed command.
fn start_logging(config: &Config, command: &str) -> Option<WorkerGuard> {
    // The appender reports a missing directory on stderr by itself; create it first. It
    // follows links: none is left where it opens a file.
    let dirs = match config.log_dir.strip_prefix(&config.state_dir) {
        Ok(below) => private_fs::private_dirs(&config.state_dir, &[&below.to_string_lossy()]),
        Err(_) => private_fs::private_dirs(&config.log_dir, &[]),
    };
    let appender = dirs
        .and_then(|()| private_fs::remove_links(&config.log_dir))
        .map_err(|e| e.to_string());
    let appender = appender.and_then(|_| {
        RollingFileAppender::builder()
            .rotation(Rotation::DAILY)
            .filename_prefix("gobare-tui")
            .filename_suffix("log")
            .max_log_files(7)
            .build(&config.log_dir)
            .map_err(|e| e.to_string())
    });
    let appender = match appender {
        Ok(a) => a,
        Err(e) => {
            if config.verbose {
                eprintln!(
                    "gobare-tui: warning: no log file in {}: {e}",
                    config.log_dir.display()
                );
            }
            return None;
        }
    };
    // The default queue (128,000 lines) is a 4 MB array the channel touches as it starts:
    // 2 ms and 4 MB of every run, for a log that writes a few lines a minute.
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_LINES_QUEUED)
        .finish(appender);
    let filter = if config.verbose {
        "info,gobare_tui=debug,gobare_api=debug,gobare_sim=debug"
    } else {
        "warn,gobare_tui=info,gobare_api=info,gobare_sim=info"
    };
    let installed = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(writer)
        .with_ansi(false)
        // One file for every process on the machine: each line says whose it is.
        .with_timer(crate::log_stamp::LineStamp::this_process(command))
        .try_init();
    installed.ok().map(|()| guard)
}
