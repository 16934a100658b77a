/// Which part of a final answer a chunk posted anew is: its delivery, its run, its place among
/// the answer's chunks, and whether it is the first chunk the answer posts rather than turns a
/// live message into (where a platform that pings in text puts its mention).
public struct FinalPart: Sendable, Equatable {
    public let delivery: String
    public let runID: String?
    public let index: Int
    public let count: Int
    public let firstPosted: Bool

    public init(delivery: String, runID: String?, index: Int, count: Int, firstPosted: Bool) {
        self.delivery = delivery
        self.runID = runID
        self.index = index
        self.count = count
        self.firstPosted = firstPosted
    }

    /// The answer's last chunk.
    public var isLast: Bool { index == count - 1 }
}
