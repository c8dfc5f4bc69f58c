//! What the user and the agent say, and the queue: who speaks, in the transcript's and the
//! screen reader's lower case and as the export's headings.

pub(crate) const YOU: &str = "you";
pub(crate) const YOU_HEADING: &str = "You";
pub(crate) const AGENT: &str = "agent";
pub(crate) const AGENT_HEADING: &str = "Agent";
pub(crate) const CONTEXT: &str = "context";
/// The context the user gave, as the export heads it.
pub(crate) const CONTEXT_HEADING: &str = "You (context)";
/// A message sent while a turn ran (a steer redirecting that turn).
pub(crate) const STEER: &str = "you · steer (sent while the turn ran)";
pub(crate) const STEER_HEADING: &str = "You · steer (sent while the turn ran)";
/// [`STEER`] as a screen reader says it, without the marks a synthesizer spells out.
pub(crate) const STEER_SPOKEN: &str = "you, steering";
/// A queued message that started its turn, as the export heads it.
pub(crate) const QUEUED_HEADING: &str = "You · queued";
/// A queued message taken off the queue.
pub(crate) const DEQUEUED: &str = "dequeued";

/// The label a queued message carries until `message.dequeued`.
pub(crate) fn queued(position: u32) -> String {
    format!("queued #{position}")
}

/// [`queued`], or just "queued" when the server gave no position.
pub(crate) fn queue_label(position: Option<u32>) -> String {
    position.map_or_else(|| "queued".into(), queued)
}

/// [`queue_label`] as a screen reader says it: `queued as number 2`.
pub(crate) fn queue_spoken(position: Option<u32>) -> impl std::fmt::Display {
    std::fmt::from_fn(move |f| {
        f.write_str("queued")?;
        match position {
            Some(p) => write!(f, " as number {p}"),
            None => Ok(()),
        }
    })
}
