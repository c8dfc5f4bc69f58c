//! One module per area; each talks real HTTP to a server of its own on 127.0.0.1:0, or
//! drives the stream task over a scripted transport on tokio's paused clock.

mod client_errors;
mod client_requests;
mod client_schedule;
mod download;
mod network_words;
mod sse_conformance;
mod stream_hostile;
mod stream_http;
mod stream_rates;
mod stream_resume;
