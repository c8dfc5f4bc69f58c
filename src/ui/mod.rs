//! Views: pure functions of (&SessionView, &UiState) onto a ratatui Frame.

pub mod composer;
pub mod diff;
pub mod help;
pub mod markdown;
pub mod outcome;
pub mod picker;
pub mod prompt;
pub mod sanitize;
pub mod theme;
