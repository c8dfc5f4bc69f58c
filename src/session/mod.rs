//! The model: pure, synchronous, no IO, no terminal.
