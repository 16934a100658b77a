import FoundationEssentials
import PiRelaySDK

/// The commands in flight on a session's pi: their ids, the table that matches pi's responses to
/// them (`PiCommandTable`), who waits for each, and the turn of the commands whose failure comes
/// back without an id. Bookkeeping only: the session writes the lines, and resumes the waiters
/// this hands back.
package struct CommandBook {
    package typealias Waiter = CheckedContinuation<PiResponse, any Error>
    package typealias TurnWaiter = CheckedContinuation<Void, any Error>

    private var table = PiCommandTable()
    private var waiters: [String: Waiter] = [:]
    private var sent = 0
    private var idlessTurnTaken = false
    private var idlessTurnQueue: [(key: UUID, waiter: TurnWaiter)] = []

    /// Prompts whose second answer may still come, newest last: a prompt pi refuses later because
    /// an earlier one was still in its pre-run phase is sent again as a follow-up.
    private var prompts: [(id: String, message: String, images: [JSONValue])] = []
    package static let promptsKept = 16

    /// Whether a command of `type` waits for its response.
    package func awaits(_ type: String) -> Bool { table.awaits(type) }

    /// `command` is about to be written: its id, now outstanding.
    package mutating func send(_ command: PiCommand) -> String {
        sent += 1
        let id = "r\(sent)"
        table.sent(id: id, type: command.type)
        if case .prompt(let message, let images, _) = command {
            prompts.append((id, message, images))
            if prompts.count > Self.promptsKept { prompts.removeFirst() }
        }
        return id
    }

    /// The words and images of prompt `id`, if still kept; they are then forgotten.
    package mutating func takePrompt(_ id: String) -> (message: String, images: [JSONValue])? {
        guard let index = prompts.firstIndex(where: { $0.id == id }) else { return nil }
        let prompt = prompts.remove(at: index)
        return (prompt.message, prompt.images)
    }

    /// `waiter` waits for the response to command `id`.
    package mutating func wait(_ id: String, _ waiter: Waiter) {
        waiters[id] = waiter
    }

    /// A response from pi: what it settles, and the waiter to hand it to.
    package mutating func received(_ response: PiResponse) -> (match: PiCommandTable.Match, waiter: Waiter?) {
        let match = table.received(response)
        guard case .settles(let id, _) = match else { return (match, nil) }
        return (match, waiters.removeValue(forKey: id))
    }

    /// Command `id` got no answer in time: it is no longer outstanding; its waiter, if still there.
    package mutating func expire(_ id: String) -> Waiter? {
        guard let waiter = waiters.removeValue(forKey: id) else { return nil }
        table.cancel(id)
        return waiter
    }

    /// pi is gone: the waiters of every command still outstanding.
    package mutating func drain() -> [Waiter] {
        table.drain().compactMap { waiters.removeValue(forKey: $0) }
    }

    /// Takes the id-less turn when it is free (true); else the caller queues for it (`queue`).
    package mutating func takeIDlessTurn() -> Bool {
        guard idlessTurnTaken else {
            idlessTurnTaken = true
            return true
        }
        return false
    }

    package mutating func queueForIDlessTurn(_ key: UUID, _ waiter: TurnWaiter) {
        idlessTurnQueue.append((key, waiter))
    }

    /// The turn's holder is done: the next in line, who now holds it, to resume.
    package mutating func passIDlessTurn() -> TurnWaiter? {
        if idlessTurnQueue.isEmpty {
            idlessTurnTaken = false
            return nil
        }
        return idlessTurnQueue.removeFirst().waiter
    }

    /// A waiter for the turn gave up: it leaves the line (nil when it already got the turn).
    package mutating func leaveIDlessTurn(_ key: UUID) -> TurnWaiter? {
        guard let index = idlessTurnQueue.firstIndex(where: { $0.key == key }) else { return nil }
        return idlessTurnQueue.remove(at: index).waiter
    }
}
