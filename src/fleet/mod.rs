//! The fleet: every session of the organization (or one crew) kept live from the session
//! list and the org stream, in one pure model, and the IO task that feeds it.

pub(crate) mod absence_digest;
pub(crate) mod absence_replay;
pub(crate) mod announced;
pub(crate) mod bands;
pub mod details;
pub mod inbox;
pub mod live;
pub mod model;
pub mod news;
pub mod order;
pub(crate) mod pacer;
mod relisting;
pub mod todos_replay;
#[cfg(test)]
pub(crate) mod trace;
pub mod trouble;
pub mod waits;
