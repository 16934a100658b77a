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

    /// What a live write of `run` in `place` names as the write it replaces (`SendPace.replaces`)
    /// while it waits for its place, so the run's final answer there can take that place
    /// (`LiveWriter.finalTakesOver`) instead of waiting behind it.
    public static func waiting(run: String, in place: some MessengerPlace) -> String { "live " + run + " " + place.key }
}
