extension FenceTracker {
    /// The fence left open: its character and how many of them opened it.
    struct Open: Equatable {
        let character: Character
        let count: Int
    }
}
