//! The fleet: every session of the organization (or one crew) kept live from the session
//! list and the org stream, in one pure model; the IO that feeds it is the fleet front's
//! (`app::fleet`).

pub(crate) mod absence_digest;
pub(crate) mod absence_glance;
pub(crate) mod announced;
pub(crate) mod bands;
pub mod inbox;
pub mod model;
pub mod news;
pub mod order;
pub(crate) mod pacer;
pub mod reads;
#[cfg(test)]
pub(crate) mod trace;
pub mod trouble;
pub mod waits;
