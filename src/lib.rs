//! gobare-tui: a terminal UI for Gobare agent sessions.

pub mod app;
pub mod cli;
pub mod commands;
pub mod config;
pub mod notify;
pub mod session;
pub mod store;
pub mod terminal;
pub mod ui;
