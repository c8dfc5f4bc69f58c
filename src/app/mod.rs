//! The loop: terminal input, stream updates, action results and the frame scheduler.

pub mod frame;
pub mod keys;
pub mod memory;
pub mod notifications;
pub mod required;
pub mod sender;
pub mod sessions;
pub mod settings;
