//! A short pane's lines built once per frame: the layout asks how many rows they take, and
//! the render that follows at the same width draws the same lines instead of building them
//! again.

use ratatui::text::Line;

#[derive(Debug, Default)]
pub(crate) struct FrameLines {
    /// Built for the layout at this width, waiting for this frame's render.
    built: Option<(u16, Vec<Line<'static>>)>,
    /// How many times lines were built (tests check once per frame).
    #[cfg(test)]
    pub(crate) builds: usize,
}

impl FrameLines {
    /// Builds the lines for `width` and keeps them for the render; returns their count.
    pub(crate) fn rows(&mut self, width: u16, build: impl FnOnce() -> Vec<Line<'static>>) -> u16 {
        let lines = self.build(build);
        let n = u16::try_from(lines.len()).unwrap_or(u16::MAX);
        self.built = Some((width, lines));
        n
    }

    /// The lines kept for `width` this frame, else freshly built (a zoomed or tabbed pane
    /// is not measured first).
    pub(crate) fn take(
        &mut self,
        width: u16,
        build: impl FnOnce() -> Vec<Line<'static>>,
    ) -> Vec<Line<'static>> {
        match self.built.take() {
            Some((w, lines)) if w == width => lines,
            _ => self.build(build),
        }
    }

    fn build(&mut self, build: impl FnOnce() -> Vec<Line<'static>>) -> Vec<Line<'static>> {
        #[cfg(test)]
        {
            self.builds += 1;
        }
        build()
    }
}
