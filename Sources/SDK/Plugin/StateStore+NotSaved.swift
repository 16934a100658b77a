extension StateStore {
    /// A state file the disk refused, thrown where the work must not be acknowledged before the
    /// file holds it (the delivery is retried, then replayed at the next start).
    public struct NotSaved: Error, CustomStringConvertible {
        public let file: String

        public init(file: String) {
            self.file = file
        }

        public var description: String { "\(file) could not be saved (is the disk full?); kept unacknowledged until it is" }
    }
}
