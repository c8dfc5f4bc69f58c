//! Writing a session's history out of the app: its events read from the stream up to the
//! current end, as Markdown or as JSON lines, sanitized and redacted, one event at a time.
//!
//! Public for the benches only: [`run::stream_options`] and [`run::write`] (the export
//! without its session read and output file), with [`history::Ends`] and
//! [`facts_feed::TurnFactsFeed`].

mod agent_body;
pub mod facts_feed;
mod file_thread;
pub(crate) mod frame_line;
mod held_output;
pub mod history;
pub(crate) mod json_escape;
pub(crate) mod jsonl;
pub(crate) mod markdown;
mod markdown_escape;
mod markdown_thread;
pub(crate) mod output;
pub mod run;
mod section;
#[cfg(test)]
mod tests;
pub(crate) mod turn_facts;
mod writeback;
