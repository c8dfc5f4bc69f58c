//! What the workspace's tests share, so that no helper is written twice: the scripted HTTP
//! server of the client tests ([`scripted_server`]). Only a dev-dependency.

pub mod scripted_server;
