//! The workspace's scripted HTTP server (answers with queued replies in order and records
//! what it received), shared with the client crate's tests.

pub(crate) use gobare_test_support::scripted_server::*;
