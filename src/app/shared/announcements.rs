//! The fleet's news as a front listens to it: the fleet screen, or the session front in front of
//! the fleet. The fleet front's task sends; a listener that falls behind skips what it missed.

use tokio::sync::broadcast;

use crate::fleet::news::FleetNews;

/// The news of the fleet from the moment it was made, for whoever shows it: the fleet
/// screen, or the app on a session in front of the fleet.
pub struct Announcements {
    receiver: broadcast::Receiver<FleetNews>,
}

impl Announcements {
    pub(crate) fn new(receiver: broadcast::Receiver<FleetNews>) -> Announcements {
        Announcements { receiver }
    }

    /// The next news; `None` once the fleet is gone.
    pub async fn next(&mut self) -> Option<FleetNews> {
        loop {
            match self.receiver.recv().await {
                Ok(news) => return Some(news),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}
