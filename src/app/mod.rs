//! The loop: terminal input, stream updates, action results and the frame scheduler.

pub mod frame;
pub mod keys;
pub mod notifications;
pub mod persist;
pub mod required;
pub mod sender;
pub mod sessions;
pub mod settings;
