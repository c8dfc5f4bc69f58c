//! The local control plane (axum), following §12 of the reference.
//!
//! INTERFACE CONTRACT (being written): `SimConfig`, `Simulator::start(config) -> Simulator`,
//! `Simulator::url()`, `Simulator::token()`, `Simulator::shutdown()`.
