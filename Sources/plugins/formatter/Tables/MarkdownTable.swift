/// A GitHub-style markdown table. Discord does not render them, so they are sent as code blocks
/// with the columns aligned by display width.
struct MarkdownTable: Equatable {
    let header: [String]
    let alignments: [ColumnAlignment]
    let rows: [[String]]
}
