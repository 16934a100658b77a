extension ChunkNormaliser {
    /// A chunk without the shape the splitter promises (label, reopening line, content).
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }
}
