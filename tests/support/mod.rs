//! Shared helpers for integration tests.
#![allow(dead_code)] // each test binary uses a different subset

pub mod app;
pub mod process;
pub mod pty;
pub mod restore;
pub mod sim;
