/// Which message of which run a live write is: the run's id and the message's place in it. A
/// platform that makes a post idempotent by a key of the caller's (Discord's nonce) derives the
/// key from it, so a message posted just before a crash, and never recorded, is found again.
public struct LiveSlot: Sendable, Equatable {
    public let run: String
    public let index: Int

    public init(run: String, index: Int) {
        self.run = run
        self.index = index
    }
}
