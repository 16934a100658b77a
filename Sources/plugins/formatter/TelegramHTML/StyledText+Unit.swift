extension StyledText {
    /// One visible character (a grapheme cluster, or one scalar of an oversized one).
    struct Unit: Equatable, Sendable {
        let character: Character
        /// Index into `styles`.
        let style: Int32
        /// The code block or quote the unit is in, 0 outside any.
        let block: Int32
        /// Continues inline code, a link or a URL: a chunk starts here only when nothing else fits.
        let glued: Bool
        /// Starts a heading: a good place for a chunk to start.
        var startsHeading = false
        /// Code points, which Telegram counts: counted once, here, since every view of a live
        /// answer sums them again (a scalar count per unit was a tenth of a view's CPU).
        let cost: Int

        init(character: Character, style: Int32, block: Int32, glued: Bool) {
            self.character = character
            self.style = style
            self.block = block
            self.glued = glued
            cost = character.unicodeScalars.count
        }

        var isWhitespace: Bool { character == " " || character == "\n" || character == "\t" || character == "\r" }
    }
}
