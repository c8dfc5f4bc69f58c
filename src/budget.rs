//! Budgets in view: what the organization and the token may still spend — session slots
//! (25, a paused workspace holding one), the request rate (`x-ratelimit-*`), each
//! workspace's running time before it is reclaimed — and the `[budget]` threshold on a
//! session's sandbox minutes.

pub(crate) mod config;
