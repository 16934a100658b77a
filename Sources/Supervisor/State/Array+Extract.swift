extension Array {
    /// Removes the elements that satisfy `predicate`, in order, and returns them.
    package mutating func extractAll(where predicate: (Element) -> Bool) -> [Element] {
        let gone = filter(predicate)
        removeAll(where: predicate)
        return gone
    }
}
