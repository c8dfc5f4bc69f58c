//! gobare-tui: a terminal UI for Gobare agent sessions.

pub mod api;
pub mod app;
pub mod cli;
pub mod commands;
pub mod config;
pub mod session;
pub mod sim;
pub mod terminal;
pub mod ui;
