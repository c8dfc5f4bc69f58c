//! The Gobare wire: everything that knows HTTP, JSON or SSE, and nothing that knows a
//! terminal.
//!
//! - [`model`]: the serde types of the API (events, sessions, turns, items, requests),
//!   tolerant of what a newer server adds.
//! - [`credentials`]: the organization's model credentials, read leniently (only `id`).
//! - [`event_family`]: the event types by family, a view every writer of a family matches
//!   whole.
//! - [`client`]: [`client::ApiClient`], typed calls to `/v1` with bearer auth and an
//!   Idempotency-Key on every write; failures are [`error::ApiError`]s.
//! - [`paging`]: [`paging::read_all`], the one walk through a list's pages, bounded.
//! - [`rate_budget`]: the request-rate buckets as the last answer's `x-ratelimit-*` said.
//! - [`retry`]: [`retry::SendRetry`], the one loop that retries a write under its key.
//! - [`schedule`]: [`schedule::Scheduler`], which every request and stream passes through:
//!   the rate buckets and stream slots, shared by class (a person's action first).
//! - [`session_patch`]: `PATCH /v1/sessions/{id}`: approval mode, permission rules, labels,
//!   model.
//! - [`stream`]: the resumable event stream, a task that reconnects from its cursor and
//!   reports [`stream::StreamUpdate`]s; [`sse`] is its parser.
//! - [`text`]: server text is hostile until it passes through here: which characters may
//!   reach a terminal, display width, truncation and wrapping.
//! - [`auth`]: the token, which no `Debug`, `Display` or error ever shows.
#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod clock;
pub mod credentials;
pub mod download;
pub mod envelope_type;
pub mod error;
mod event_decode;
pub mod event_family;
pub mod files;
mod frame_data;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod http;
mod json;
pub mod model;
mod network_words;
pub mod paging;
pub mod rate_budget;
pub mod retry;
pub mod schedule;
pub mod session_patch;
pub mod sse;
pub mod stream;
pub mod text;
pub use model::unreadable;
