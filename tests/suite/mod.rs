//! One file per area; each drives the real binary or the library's seams.

mod actions_e2e;
mod actions_new;
mod actions_required;
mod actions_restart;
mod actions_send;
mod app_e2e;
mod app_panic;
mod cli_help;
mod cli_tail;
mod client_secrets;
mod faults_drops;
mod faults_network;
mod faults_refusals;
mod hostile_json;
mod hostile_render;
mod layout;
mod malformed_frames;
mod malformed_props;
mod perf_e2e;
mod pty_terminal;
mod refusal_reopen;
mod resume_faults;
mod send_during_drop;
mod soak;
mod token_leak;
mod wire_edges;
