//! One module per subcommand; `main` makes exactly one `run` call into one of them.

pub mod attach;
pub mod demo;
pub mod exit;
pub mod frame_line;
pub mod new;
pub mod sim;
pub mod start;
pub mod tail;

/// The error for a command this build does not have yet (exit status 2).
pub(crate) fn not_available(what: &str) -> color_eyre::Report {
    crate::cli::UsageError(format!("{what} is not available yet in this build")).into()
}
