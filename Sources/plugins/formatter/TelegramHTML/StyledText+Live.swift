extension StyledText {
    /// The styled texts of a live view's settled and current documents, through `settledTexts`
    /// when there is one and it can go on from what it read.
    static func live(settled: String, current: String, reusing settledTexts: SettledTexts?) -> (done: StyledText, now: StyledText) {
        if let known = settledTexts?.styled(settled: settled, current: current) { return known }
        return (StyledText(markdown: settled), StyledText(markdown: current))
    }
}
