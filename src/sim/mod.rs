//! The local control plane (axum), following §12 of the reference.

pub mod args;
