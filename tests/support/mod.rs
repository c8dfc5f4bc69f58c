//! Shared helpers for integration tests.

pub(crate) mod actions;
pub(crate) mod app;
pub(crate) mod cli;
pub(crate) mod endless_pages;
pub(crate) mod faults;
pub(crate) mod fleet;
pub(crate) mod live;
pub(crate) mod process;
pub(crate) mod restore;
pub(crate) mod scripted_server;
pub(crate) mod sim;
