//! Views: pure functions of (&SessionView, &UiState) onto a ratatui Frame.

pub mod composer;
pub mod diff;
pub mod events;
pub mod footer;
pub mod help;
pub mod layout;
pub mod markdown;
pub mod outcome;
mod pane;
pub mod picker;
pub mod prompt;
pub mod state;
mod styled;
pub mod theme;
pub mod transcript;
pub mod turn;
pub mod workspace;

#[cfg(test)]
mod view_tests;

pub use layout::{Areas, areas, draw};
pub use state::{Pane, UiState};
