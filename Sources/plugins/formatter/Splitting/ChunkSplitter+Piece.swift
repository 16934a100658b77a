extension ChunkSplitter {
    /// One chunk's place in the document, before it is turned into text.
    struct Piece {
        let from: Int
        let to: Int
    }
}
