extension StyledText {
    /// One visible character (a grapheme cluster, or one scalar of an oversized one).
    ///
    /// Plain data, with no `Character` in it: a live view copies and compares its answer's units
    /// every 100 ms, and units holding a `Character` were copied one by one through its value
    /// witness, twice the size. A character that is not one ASCII byte is kept as UTF-8 in the
    /// text's `clusters`, which the unit points into.
    struct Unit: Equatable, Sendable {
        /// Where the character's UTF-8 starts in `clusters`, and how long it is; 0 and 0 for an
        /// ASCII character, which is `byte` (but a NUL, which is a cluster of one byte).
        let clusterStart: Int32
        let clusterLength: UInt8
        /// The character's one byte when it is ASCII, else 0 (a NUL too): comparing and writing a
        /// byte is cheaper than a `Character`, which compares as a string.
        let byte: UInt8
        /// Code points, which Telegram counts: counted once, here, since every view of a live
        /// answer sums them again (a scalar count per unit was a tenth of a view's CPU). At most
        /// `maxClusterScalars`.
        private let scalars: UInt8
        /// Continues inline code, a link or a URL: a chunk starts here only when nothing else fits.
        let glued: Bool
        /// Starts a heading: a good place for a chunk to start.
        var startsHeading = false
        /// Index into `styles`.
        let style: Int32
        /// The code block or quote the unit is in, 0 outside any.
        let block: Int32

        /// An ASCII character.
        init(byte: UInt8, style: Int32, block: Int32, glued: Bool) {
            (clusterStart, clusterLength, self.byte, scalars) = (0, 0, byte, 1)
            (self.style, self.block, self.glued) = (style, block, glued)
        }

        /// Any other, whose UTF-8 is at `clusterStart` in `clusters`.
        init(clusterStart: Int, clusterLength: Int, scalars: Int, style: Int32, block: Int32, glued: Bool) {
            (self.clusterStart, self.clusterLength, byte, self.scalars) = (Int32(clusterStart), UInt8(clusterLength), 0, UInt8(scalars))
            (self.style, self.block, self.glued) = (style, block, glued)
        }

        var cost: Int { Int(scalars) }

        var isWhitespace: Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
    }

    /// The character of unit `index`.
    func character(at index: Int) -> Character {
        let unit = units[index]
        if unit.byte != 0 { return Character(Unicode.Scalar(unit.byte)) }
        let start = Int(unit.clusterStart)
        return Character(String(decoding: clusters[start..<start + Int(unit.clusterLength)], as: UTF8.self))
    }
}
