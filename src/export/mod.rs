//! Writing a session's history out of the app: its events read from the stream up to the
//! current end, as Markdown or as JSON lines, sanitized and redacted, one event at a time.
//!
//! The Markdown export writes each turn's closing line (outcome, artifacts) from facts the
//! stream does not carry, read beside it; rather than stop at every turn for them, a
//! closing line may wait while what follows is held:
//!
//! ```text
//!  GET …/events ──▶ history (read to the known end) ──pieces, bounded queue──┐
//!                                                                           ▼
//!  GET …/turns, …/artifacts ──▶ TurnFactsFeed ──fill──▶ export-writer thread, per event:
//!        (pages as they come;      ▲                     1 its facts known    → written
//!         a turn the lists lack    │                     2 fill_now has them  → written
//!         or just ended: read      └──── fill (blocks) ◀ 4 else wait for them, then 1
//!         alone, once)                                   3 turn.started/ended while the
//!                                                          lists are still read and
//!                                                          < 16 MiB held → written ahead:
//!                                                          its closing line waits in
//!                                                          HeldOutput, and all after it
//!  HeldOutput ──▶ file: each waiting closing line written once its facts come (after
//!                 every batch, and at the end, where the writer waits for the rest)
//! ```
//!
//! `markdown::MarkdownWriter` says what an event wants (`wants`, borrowed, on every
//! event; `facts_wanted`, owned, only when something is missing: two types, as one cost
//! +0.7 % instructions, docs/perf.md), `markdown_thread` runs
//! the steps, [`facts_feed::TurnFactsFeed`] reads, `held_output` holds.
//!
//! Public for the benches only: [`run::stream_options`] and [`run::write`] (the export
//! without its session read and output file), with [`history::Ends`] and
//! [`facts_feed::TurnFactsFeed`] (`none`, or `given` the lists).

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
