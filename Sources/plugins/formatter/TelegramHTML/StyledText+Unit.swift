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
        /// The character's one byte when it is ASCII, else 0: comparing and writing a byte is
        /// cheaper than a `Character`, which compares as a string.
        let byte: UInt8

        init(character: Character, style: Int32, block: Int32, glued: Bool) {
            self.character = character
            self.style = style
            self.block = block
            self.glued = glued
            cost = character.unicodeScalars.count
            let utf8 = character.utf8
            byte = utf8.count == 1 ? utf8[utf8.startIndex] : 0
        }

        var isWhitespace: Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
    }
}
