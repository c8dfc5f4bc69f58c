//! Tests' reading of a drawn buffer as text: a line per row, joined by newlines.

use ratatui::buffer::Buffer;

/// Every row of `buf` as drawn, trailing spaces kept.
pub(crate) fn rows(buf: &Buffer) -> String {
    let area = buf.area;
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every row of `buf` with its trailing spaces cut.
pub(crate) fn rows_trimmed(buf: &Buffer) -> String {
    rows(buf)
        .split('\n')
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}
