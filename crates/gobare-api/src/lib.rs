//! Everything that knows HTTP, JSON or SSE.

pub mod auth;
pub mod client;
pub mod error;
pub mod model;
pub mod retry;
pub mod sse;
pub mod stream;
pub mod text;
