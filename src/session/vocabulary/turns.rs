//! A turn's start and end. How a turn came out is [`TurnOutcome::words`], kept with the
//! outcome it reads.
//!
//! [`TurnOutcome::words`]: crate::session::transcript::TurnOutcome::words

/// A turn that ended, before how it ended is read.
pub(crate) const ENDED: &str = "turn ended";

/// A turn's ending said without its outcome: it could not be read in time (`follow`).
pub(crate) const ENDING_UNREAD: &str = "turn ended; how it ended could not be read";

/// `turn completed in 2m 05s`: a settled turn, from its outcome's words.
pub(crate) fn came_out(outcome: impl std::fmt::Display) -> impl std::fmt::Display {
    std::fmt::from_fn(move |f| write!(f, "turn {outcome}"))
}
