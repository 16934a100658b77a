import MessengerKit

/// A conversation on the fake platform.
struct FakeRoom: MessengerPlace {
    var key: String
}

/// A platform that records each write, can hold writes until released or fail the next one,
/// and gives an edited message a new id when asked to (as Slack does for a message it re-posts).
actor FakePlatform: FinalWriter {
    struct Refused: Error {}
    /// A refusal for good (the bot may not post here): the view stops until the final.
    struct Forbidden: Error {}

    /// Which run's message each live send was.
    private(set) var slots: [LiveSlot] = []
    /// Which part of its answer each final send was.
    private(set) var parts: [FinalPart] = []
    private var forbidden = false
    /// Writes refused for good.
    private(set) var refusals = 0

    private(set) var writes: [String] = []
    private var nextID = 100
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var renumberEdits = false
    private var failAfter: Int?

    /// Live edits waiting for their place in the budget (until `release`), which a final takes
    /// over: then they give way, unsent.
    private var queueingEdits = false
    private var queuedEdits: [Int: CheckedContinuation<Bool, Never>] = [:]
    func queueEdits() { queueingEdits = true }
    var editsWaiting: Int { queuedEdits.count }
    /// Live posts waiting for their place, by run: a final takes them over too.
    private var queueingSends = false
    private var queuedSends: [String: CheckedContinuation<Bool, Never>] = [:]
    func queueSends() { queueingSends = true }
    var sendsWaiting: Int { queuedSends.count }

    func hold() { held = true }
    func release() {
        queueingEdits = false
        for (_, edit) in queuedEdits { edit.resume(returning: true) }
        queuedEdits = [:]
        queueingSends = false
        for (_, send) in queuedSends { send.resume(returning: true) }
        queuedSends = [:]
        held = false
        for waiter in waiting { waiter.resume() }
        waiting = []
    }
    func renumber() { renumberEdits = true }
    /// Every write from now on is refused for good.
    func forbid() { forbidden = true }

    nonisolated func givesUp(after error: any Error) -> Bool { error is Forbidden }
    /// The platform takes `count` more writes, then refuses the rest (a plugin killed mid-answer).
    func fail(after count: Int) { failAfter = writes.count + count }

    private func pass(_ write: String) async throws {
        if forbidden {
            refusals += 1
            throw Forbidden()
        }
        if let failAfter, writes.count >= failAfter { throw Refused() }
        writes.append(write)
        if held { await withCheckedContinuation { waiting.append($0) } }
    }

    private func newID() -> Int {
        nextID += 1
        return nextID
    }

    func sendLive(_ text: String, to place: FakeRoom, slot: LiveSlot) async throws -> Int {
        if queueingSends {
            let goes = await withCheckedContinuation { queuedSends[LiveSlot.waiting(run: slot.run, in: place)] = $0 }
            if !goes { throw LiveEditSuperseded() }
        }
        try await pass("send \(place.key): \(text)")
        slots.append(slot)
        return newID()
    }

    func editLive(_ id: Int, in place: FakeRoom, to text: String) async throws -> Int? {
        if queueingEdits {
            let goes = await withCheckedContinuation { queuedEdits[id] = $0 }
            if !goes { throw LiveEditSuperseded() }
        }
        try await pass("edit \(id): \(text)")
        return renumberEdits ? newID() : nil
    }

    func sendFinal(_ chunk: String, to place: FakeRoom, part: FinalPart) async throws {
        try await pass("final \(place.key): \(chunk)")
        parts.append(part)
        _ = newID()
    }

    func finalTakesOver(run: String, messages: [Int], in place: FakeRoom) async {
        for id in messages { queuedEdits.removeValue(forKey: id)?.resume(returning: false) }
        queuedSends.removeValue(forKey: LiveSlot.waiting(run: run, in: place))?.resume(returning: false)
    }

    func editFinal(_ id: Int, in place: FakeRoom, to chunk: String) async throws {
        try await pass("edit \(id): \(chunk)")
    }

    func deleteLive(_ id: Int, in place: FakeRoom) async throws {
        try await pass("delete \(id)")
    }
}
