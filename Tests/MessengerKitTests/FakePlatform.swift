import MessengerKit

/// A conversation on the fake platform.
struct FakeRoom: MessengerPlace {
    var key: String
}

/// A platform that records each write, can hold writes until released or fail the next one,
/// and gives an edited message a new id when asked to (as Slack does for a message it re-posts).
actor FakePlatform: FinalWriter {
    struct Refused: Error {}

    private(set) var writes: [String] = []
    private var nextID = 100
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var renumberEdits = false
    private var failAfter: Int?

    func hold() { held = true }
    func release() {
        held = false
        for waiter in waiting { waiter.resume() }
        waiting = []
    }
    func renumber() { renumberEdits = true }
    /// The platform takes `count` more writes, then refuses the rest (a plugin killed mid-answer).
    func fail(after count: Int) { failAfter = writes.count + count }

    private func pass(_ write: String) async throws {
        if let failAfter, writes.count >= failAfter { throw Refused() }
        writes.append(write)
        if held { await withCheckedContinuation { waiting.append($0) } }
    }

    private func newID() -> Int {
        nextID += 1
        return nextID
    }

    func sendLive(_ text: String, to place: FakeRoom) async throws -> Int {
        try await pass("send \(place.key): \(text)")
        return newID()
    }

    func editLive(_ id: Int, in place: FakeRoom, to text: String) async throws -> Int? {
        try await pass("edit \(id): \(text)")
        return renumberEdits ? newID() : nil
    }

    func sendFinal(_ chunk: String, to place: FakeRoom) async throws {
        try await pass("final \(place.key): \(chunk)")
        _ = newID()
    }

    func editFinal(_ id: Int, in place: FakeRoom, to chunk: String) async throws {
        try await pass("edit \(id): \(chunk)")
    }

    func deleteLive(_ id: Int, in place: FakeRoom) async throws {
        try await pass("delete \(id)")
    }
}
