//! What background work reports back to the loop, through one channel.
//!
//! Every spawned API call ends by sending one [`AppMsg`]; add a variant for new kinds of
//! work and handle it in `App::on_msg`.

use super::fetch::Job;
use crate::api::error::ApiError;
use crate::api::model::{Input, InputAccepted};
use crate::session::Update;

#[derive(Debug)]
pub enum AppMsg {
    /// A model read finished: the update to apply, or why it failed.
    Fetched {
        job: Job,
        result: Result<Update, ApiError>,
    },
    /// News from the send executor (`app::sender`): a retry, or a settled send.
    Action(crate::app::sender::SendEvent),
    /// A `POST …/events` finished.
    Sent {
        input: Input,
        result: Result<InputAccepted, ApiError>,
    },
}
