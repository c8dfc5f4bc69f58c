//! The local control plane (axum).
