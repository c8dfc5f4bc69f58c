//! The client tests' servers: the workspace's scripted one (answers with queued replies in
//! order and records what it received) and the hostile ones of this crate's stream tests.

pub(crate) use gobare_test_support::scripted_server::*;

pub(crate) mod hostile;
