//! gobare-tui: a terminal UI for Gobare agent sessions.
//!
//! The binary is [`main`]. Everything else is crate-private but for the seams the integration
//! tests, the benches and the terminal-restore example drive, each documented where it is
//! defined: the session model and one frame of it (`session`, `ui`), the on-disk state
//! (`store`, `app::shared::saved_session`), the send executor (`app::shared::sender`), the terminal guard
//! (`terminal`), and the command line and configuration (`cli`, `config`).

pub mod app;
pub mod away;
pub(crate) mod budget;
pub mod changes;
pub mod cli;
mod clipboard;
pub mod commands;
pub mod config;
pub mod deadline;
mod downloads;
mod entry;
pub mod export;
pub mod fleet;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod keys;
mod log_stamp;
mod notify;
mod readable;
mod redact;
pub mod search;
pub mod session;
pub mod sessions;
pub mod store;
pub mod terminal;
#[cfg(test)]
mod tests;
pub mod ui;

pub use entry::main;
