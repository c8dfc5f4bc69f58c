//! The budgets a session's Workspace pane shows: the fleet's slots (from the fleet behind,
//! handed in by the runtime) and the request budget the client last heard.

use super::SessionFront;
use crate::budget::Budgets;
use crate::budget::slots::Counts;

impl SessionFront {
    /// The fleet's figures, when there is a fleet behind; a change asks for a frame.
    pub(crate) fn set_fleet_counts(&mut self, counts: Option<Counts>) {
        if self.fleet_counts != counts {
            self.fleet_counts = counts;
            self.request_frame();
        }
    }

    /// Before a frame: the figures as they are now.
    pub(crate) fn gather_budgets(&mut self) {
        let budgets = Budgets::gather(&self.client, self.fleet_counts);
        self.screen.set_budgets(budgets);
    }
}
