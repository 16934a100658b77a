import FoundationEssentials
import PiRelaySDK

/// One run's live view as a pure state machine: `chat.live` updates come in as fast as the agent
/// types, and this decides the few Discord calls that show them. Message i shows finished chunk
/// i; the last message shows the live tail. Finished chunks are posted once, in order; the tail
/// message is edited in place, at most once per `editInterval` per message, always with the
/// newest text (older updates are simply overwritten). The driver asks `next`, performs the
/// action, and reports back with `posted`, `edited` or `failed`; one action is out at a time.
struct Coalescer: Sendable {
    typealias Instant = ContinuousClock.Instant

    enum Action: Equatable, Sendable {
        case post(index: Int, content: String)
        case edit(index: Int, messageID: String, content: String)
        case wait(until: Instant)
        case idle
    }

    /// A posted message: its id, a fingerprint of what it shows, and when it last changed.
    struct Slot: Equatable, Sendable {
        var messageID: String
        var fingerprint: String
        var lastChange: Instant?
    }

    /// Discord edits one message at most this often; the supervisor is told so in the hello
    /// (`liveIntervalMs`) and sends live views no faster.
    static let defaultEditInterval: Duration = .milliseconds(800)

    let editInterval: Duration
    let limit: Int
    private(set) var revision: Int?
    private(set) var chunks: [String] = []
    private(set) var tail = ""
    private(set) var slots: [Slot]
    private(set) var busy = false
    private var retryAt: Instant?

    init(editInterval: Duration = Coalescer.defaultEditInterval, limit: Int = 2000, posted: [Slot] = []) {
        self.editInterval = editInterval
        self.limit = limit
        slots = posted
    }

    /// A new `chat.live`; false (and ignored) when its revision is not newer than what we have.
    @discardableResult
    mutating func update(revision rev: Int?, chunks: [String], tail: String) -> Bool {
        if let rev, let revision, rev <= revision { return false }
        revision = rev ?? revision
        self.chunks = chunks.map { TextFit.clamp($0, to: limit) }
        self.tail = TextFit.clamp(tail, to: limit)
        return true
    }

    /// What message i should show: chunk i, or the tail right after the last chunk.
    var desired: [String] {
        chunks + (tail.trimmed().isEmpty ? [] : [tail])
    }

    mutating func next(now: Instant) -> Action {
        guard !busy else { return .idle }
        if let retryAt {
            if now < retryAt { return .wait(until: retryAt) }
            self.retryAt = nil
        }
        let want = desired
        var soonest: Instant?
        for index in 0..<min(slots.count, want.count) where slots[index].fingerprint != Self.fingerprint(want[index]) {
            let ready = slots[index].lastChange.map { $0 + editInterval } ?? now
            if ready <= now {
                busy = true
                return .edit(index: index, messageID: slots[index].messageID, content: want[index])
            }
            soonest = min(soonest ?? ready, ready)
        }
        if slots.count < want.count {
            busy = true
            return .post(index: slots.count, content: want[slots.count])
        }
        if let soonest { return .wait(until: soonest) }
        return .idle
    }

    mutating func posted(index: Int, messageID: String, content: String, now: Instant) {
        busy = false
        guard index == slots.count else { return }
        slots.append(Slot(messageID: messageID, fingerprint: Self.fingerprint(content), lastChange: now))
    }

    mutating func edited(index: Int, content: String, now: Instant) {
        busy = false
        guard slots.indices.contains(index) else { return }
        slots[index].fingerprint = Self.fingerprint(content)
        slots[index].lastChange = now
    }

    /// The action failed; try again (with the newest content) no sooner than `retry`.
    mutating func failed(now: Instant, retry: Duration) {
        busy = false
        retryAt = now + retry
    }

    /// Nothing left to show: every message matches the newest update.
    var settled: Bool {
        let want = desired
        return slots.count >= want.count && zip(slots, want).allSatisfy { $0.fingerprint == Self.fingerprint($1) }
    }

    static func fingerprint(_ text: String) -> String {
        Digest.hex64(text) + ":" + String(text.utf8.count)
    }
}
