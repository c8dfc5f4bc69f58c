//! "While you were away": what happened in a session or across the fleet since the user
//! last looked — turns completed and failed (with why), decisions waiting (with the time
//! left), artifacts added, the workspace paused, reclaimed or recovered, and the usage —
//! computed from the events already on disk (the local event log) and the resources, never a
//! model call. The app shows it after a restart or a long unfocus; `gobare-tui report`
//! prints it for the whole fleet.

pub mod builder;
pub(crate) mod config;
pub mod digest;
pub(crate) mod fleet_lines;
pub(crate) mod fleet_record;
pub mod from_event_log;
pub(crate) mod gather;
pub mod json;
pub mod lines;
