//! Publishing and unpublishing the preview (`POST`/`DELETE …/preview`): `p` from the panes
//! asks first, the write runs in the background, and a session re-read shows the result.

use super::SessionFront;
use super::msg::AppMsg;
use crate::keys::mode::Confirm;
use crate::session::Severity;
use gobare_api::client::IdempotencyKey;
use gobare_api::error::ApiError;

impl SessionFront {
    /// `p`: asks to publish a preview that is not public, or to unpublish one that is.
    pub(crate) fn act_toggle_preview(&mut self) {
        let preview = self.session.workspace().preview();
        if preview.published_url.is_some() {
            self.screen.ask(Confirm::UnpublishPreview);
        } else if preview.url.is_some() || preview.port.is_some() {
            self.screen.ask(Confirm::PublishPreview);
        } else {
            self.notice(Some(
                "no preview to publish: the agent has not opened a port".into(),
            ));
        }
    }

    /// Starts the write the user confirmed.
    pub(crate) fn act_preview(&mut self, publish: bool) {
        let client = crate::app::shared::jobs::Job::Preview.client(&self.client);
        let id = self.session_id.clone();
        let tx = self.msgs.clone();
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::Preview, async move {
            let result = if publish {
                client
                    .publish_preview(&id, &IdempotencyKey::new())
                    .await
                    .map(|_| ())
            } else {
                client.unpublish_preview(&id).await
            };
            let _ = tx.send(AppMsg::PreviewWritten { publish, result });
        });
        let what = if publish {
            "publishing the preview…"
        } else {
            "unpublishing the preview…"
        };
        self.notice(Some(what.into()));
    }

    pub(crate) fn on_preview_written(&mut self, publish: bool, result: Result<(), ApiError>) {
        match result {
            Ok(()) => {
                // The session says where it is published: read it rather than guess.
                self.want(crate::app::session::reading::fetch::FetchJob::Session);
                let what = if publish {
                    "preview published"
                } else {
                    "preview unpublished"
                };
                self.notice(Some(what.into()));
            }
            Err(e) => {
                let what = if publish { "publish" } else { "unpublish" };
                self.notice_at(
                    Severity::Error,
                    format!("could not {what} the preview: {}", e.summary()),
                );
            }
        }
    }
}
