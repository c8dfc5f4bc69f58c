//! The app: one runtime (`runtime`) that enters the terminal once and runs one front at a time,
//! the session front ([`session`]) or the fleet front ([`fleet`]), over what both use
//! ([`shared`]). The runtime is above the fronts, the fronts are above `shared`, and neither
//! front imports the other.

pub mod fleet;
pub(crate) mod runtime;
pub mod session;
pub mod shared;
