//! A task handle that ends the task when dropped: a job that belongs to something (an
//! overlay) ends with it instead of running on unseen.

use tokio::task::AbortHandle;

/// Aborts its task when dropped.
#[derive(Debug)]
pub(crate) struct AbortOnDrop(pub(crate) AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::overlay::{Overlay, OverlayKey, ViewKey, ViewScope};
    use crate::ui::screen::Screen;
    use crate::ui::theme::Theme;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;

    struct Blank;

    impl Overlay for Blank {
        fn render(&mut self, _: Rect, _: &mut Buffer, _: &Theme) {}
        fn scope(&self) -> ViewScope {
            ViewScope::Pager
        }
        fn handle(&mut self, _: ViewKey) -> OverlayKey {
            OverlayKey::Close
        }
    }

    fn endless() -> tokio::task::JoinHandle<()> {
        tokio::spawn(std::future::pending())
    }

    #[tokio::test]
    async fn closing_or_replacing_an_overlay_ends_its_jobs() {
        let mut screen = Screen::new();
        screen.open_overlay(Box::new(Blank));
        let job = endless();
        screen.tie_to_overlay(Box::new(AbortOnDrop(job.abort_handle())));
        screen.close_overlay();
        assert!(job.await.unwrap_err().is_cancelled());

        screen.open_overlay(Box::new(Blank));
        let job = endless();
        screen.tie_to_overlay(Box::new(AbortOnDrop(job.abort_handle())));
        screen.open_overlay(Box::new(Blank));
        assert!(job.await.unwrap_err().is_cancelled());
    }

    #[tokio::test]
    async fn a_job_of_an_open_overlay_runs_on() {
        let mut screen = Screen::new();
        screen.open_overlay(Box::new(Blank));
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job = tokio::spawn(async move {
            let _ = tx.send(());
        });
        screen.tie_to_overlay(Box::new(AbortOnDrop(job.abort_handle())));
        rx.await.expect("the job ran to its end");
    }
}
