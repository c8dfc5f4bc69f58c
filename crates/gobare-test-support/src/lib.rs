//! What the workspace's tests share, so that no helper is written twice: the scripted HTTP
//! server of the client tests ([`scripted_server`]) and a program in a pseudo-terminal
//! watched through a `vt100` screen, the workspace's binary started in one with an
//! isolated home ([`pty`]). Only a dev-dependency.

pub mod pty;
pub mod scripted_server;
