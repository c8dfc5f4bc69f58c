//! One module per subcommand; `main` makes exactly one `run` call into one of them.

mod acting;
pub(crate) mod answer;
pub(crate) mod artifacts;
pub(crate) mod attach;
pub(crate) mod cancel;
pub(crate) mod demo;
pub(crate) mod diff;
pub(crate) mod exit;
pub(crate) mod export;
pub(crate) mod fleet;
pub(crate) mod follow;
pub(crate) mod inbox;
pub(crate) mod list;
pub(crate) mod new;
pub(crate) mod report;
pub(crate) mod rules;
pub(crate) mod send;
pub(crate) mod session_id;
pub(crate) mod sim;
pub(crate) mod start;
pub(crate) mod tail;
pub(crate) mod wait;

#[cfg(test)]
mod tests;
