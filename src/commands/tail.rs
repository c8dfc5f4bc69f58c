//! `gobare-tui tail`. (Being written.)
