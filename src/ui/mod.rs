//! Views: pure functions of the model onto a ratatui Frame.
