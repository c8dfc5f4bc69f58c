//! Everything that knows HTTP, JSON or SSE.

pub mod auth;
pub mod client;
pub mod model;
pub mod sse;
pub mod stream;
