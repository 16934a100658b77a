extension MarkdownLine {
    enum Kind: Equatable {
        /// Ordinary markdown outside any fence.
        case text
        case fenceOpen(Fence)
        /// A line inside the fence.
        case code(Fence)
        case fenceClose(Fence)

        var isText: Bool { self == .text }
    }
}
