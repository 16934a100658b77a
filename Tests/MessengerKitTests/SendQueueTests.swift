import MessengerKit
import Synchronization
import Testing

@Suite struct SendQueueTests {
    /// A budget the test fills by hand: a write may go while a token is left, else not for an
    /// hour (the test refreshes the queue when it adds tokens). With `spare`, it keeps back the
    /// tokens a write is asked to leave; without, it has no room to (a burst of one).
    final class Tokens: SendAllowance {
        let left = Mutex(0)
        let spare: Bool
        init(spare: Bool = false) { self.spare = spare }
        func wait(chat: String, now: Double) -> Double { left.withLock { $0 >= 1 ? 0 : 3600 } }
        func wait(chat: String, now: Double, keeping spare: Int) -> Double {
            left.withLock { $0 >= 1 + (self.spare ? spare : 0) ? 0 : 3600 }
        }
        func take(chat: String, now: Double) { left.withLock { $0 -= 1 } }
    }

    actor Sent {
        private(set) var order: [String] = []
        func add(_ name: String) { order.append(name) }
    }

    static func waitUntil(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<500 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition never held")
    }

    @Test func whenTheBudgetAllowsTheMostUrgentWaitingWriteGoesFirst() async throws {
        let tokens = Tokens()
        let queue = SendQueue(allowance: tokens)
        let sent = Sent()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, priority) in [("notice", SendPriority.notice), ("live", .live), ("question", .answer)] {
                group.addTask {
                    if try await queue.turn(chat: "42", priority: priority) { await sent.add(name) }
                }
                try await Self.waitUntil { await queue.count(chat: "42") == (name == "notice" ? 1 : name == "live" ? 2 : 3) }
            }
            // One place at a time, each write seen to go before the next place is given: the
            // writes' own tasks would otherwise record them in whatever order they are scheduled.
            for given in 1...3 {
                tokens.left.withLock { $0 += 1 }
                await queue.refresh(chat: "42")
                try await Self.waitUntil { await sent.order.count == given }
            }
            try await group.waitForAll()
        }
        #expect(await sent.order == ["question", "live", "notice"])
        #expect(tokens.left.withLock { $0 } == 0, "each write took its place in the budget")
    }

    /// A live view goes only while it leaves a write of the budget spare: with one left it
    /// waits, and a question that comes after it takes that write at once.
    @Test func aLiveViewLeavesTheLastWriteForAQuestion() async throws {
        let tokens = Tokens(spare: true)
        tokens.left.withLock { $0 = 1 }
        let queue = SendQueue(allowance: tokens)
        let live = Task { try await queue.turn(chat: "42", priority: .live) }
        try await Self.waitUntil { await queue.count(chat: "42") == 1 }
        #expect(try await queue.turn(chat: "42", priority: .answer), "the question goes at once")
        #expect(await queue.count(chat: "42") == 1, "the live view still waits")
        tokens.left.withLock { $0 = 2 }
        await queue.refresh(chat: "42")
        #expect(try await live.value)
        #expect(tokens.left.withLock { $0 } == 1, "and leaves one")
    }

    @Test func anEditWaitingForTheBudgetIsReplacedByANewerEditOfTheSameMessage() async throws {
        let tokens = Tokens()
        let queue = SendQueue(allowance: tokens)
        async let older = queue.turn(chat: "42", priority: .live, replaces: "42:7")
        try await Self.waitUntil { await queue.count(chat: "42") == 1 }
        async let newer = queue.turn(chat: "42", priority: .live, replaces: "42:7")
        #expect(try await older == false, "superseded: not to be sent")
        tokens.left.withLock { $0 = 1 }
        await queue.refresh(chat: "42")
        #expect(try await newer == true)
    }

    /// A waiting edit that a final takes over is not sent, and leaves the line.
    @Test func aWaitingEditTheFinalTakesOverIsNotSent() async throws {
        let queue = SendQueue(allowance: Tokens())
        async let edit = queue.turn(chat: "42", priority: .live, replaces: "42:7")
        try await Self.waitUntil { await queue.count(chat: "42") == 1 }
        await queue.supersede(chat: "42", replaces: "42:8")
        #expect(await queue.count(chat: "42") == 1, "another message's edit: still waiting")
        await queue.supersede(chat: "42", replaces: "42:7")
        #expect(try await edit == false)
        #expect(await queue.count(chat: "42") == 0)
    }

    @Test func aWriteCancelledWhileItWaitsLeavesTheLine() async throws {
        let queue = SendQueue(allowance: Tokens())
        let waiting = Task { try await queue.turn(chat: "42", priority: .notice) }
        try await Self.waitUntil { await queue.count(chat: "42") == 1 }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        try await Self.waitUntil { await queue.count(chat: "42") == 0 }
    }

    @Test func aWriteWithTheBudgetFreeGoesAtOnceAndTakesItsPlace() async throws {
        let tokens = Tokens()
        tokens.left.withLock { $0 = 1 }
        let queue = SendQueue(allowance: tokens)
        #expect(try await queue.turn(chat: "42", priority: .notice))
        #expect(tokens.left.withLock { $0 } == 0)
    }
}
