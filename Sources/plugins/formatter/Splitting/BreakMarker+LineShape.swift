extension BreakMarker {
    /// What one line is, for choosing the break class at the start of the next.
    enum LineShape {
        case none, blank, text, fenceOpen, code, fenceClose
    }
}
