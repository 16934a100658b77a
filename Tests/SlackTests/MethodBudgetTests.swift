import MessengerKit
import Synchronization
import Testing

@testable import SlackPlugin

/// Slack's writes in the send queue, over the real pacer on a clock the test moves: a channel's
/// next post goes to the most urgent write waiting for it, and a live edit still waiting gives
/// way to a newer edit of the same message.
@Suite struct MethodBudgetTests {
    final class Clock: Sendable {
        let now = Mutex(1000.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
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

    /// A pacer whose buckets are full: nothing spent yet.
    static func queue(_ clock: Clock) -> SendQueue {
        PacerBudget(MethodPacer(), clock: { clock.now.withLock { $0 } }).queue
    }

    @Test func aQuestionTakesTheChannelsNextPostBeforeTheNoticeAndTheLiveViewThatCameFirst() async throws {
        let clock = Clock()
        let queue = Self.queue(clock)
        let key = try #require(MethodPacer.key(method: "chat.postMessage", channel: "C0123"))
        #expect(key == "chat.postMessage/C0123")
        // The channel's burst is three posts, then one about every 1.7 s; notices and live views
        // leave the last one for what someone waits on, so two go at once.
        for _ in 0..<2 { #expect(try await queue.turn(chat: key, priority: .notice)) }
        let sent = Sent()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, (name, priority)) in [("notice", SendPriority.notice), ("live", .live)].enumerated() {
                group.addTask { if try await queue.turn(chat: key, priority: priority) { await sent.add(name) } }
                try await Self.waitUntil { await queue.count(chat: key) == index + 1 }
            }
            // The question that came last takes the post they left, at once.
            #expect(try await queue.turn(chat: key, priority: .answer))
            await sent.add("question")
            // Then each waits until it leaves one post again. One at a time, each recorded before
            // the next may go: the order seen is the queue's, not the order woken tasks ran in.
            for sentSoFar in 2...3 {
                clock.advance(4)
                await queue.refresh(chat: key)
                try await Self.waitUntil { await sent.order.count == sentSoFar }
            }
            try await group.waitForAll()
        }
        #expect(await sent.order == ["question", "live", "notice"])
        // Another channel's posts have their own bucket.
        #expect(try await queue.turn(chat: try #require(MethodPacer.key(method: "chat.postMessage", channel: "C0456")), priority: .notice))
    }

    @Test func aLiveEditStillWaitingGivesWayToANewerEditOfTheSameMessage() async throws {
        let clock = Clock()
        let queue = Self.queue(clock)
        let key = try #require(MethodPacer.key(method: "chat.update", channel: "C0123"))
        #expect(key == "chat.update", "edits share the method's bucket, every channel's")
        // Tier 3's burst of four, less the three live edits leave for finals.
        #expect(try await queue.turn(chat: key, priority: .live))
        async let older = queue.turn(chat: key, priority: .live, replaces: "C0123/1.000100")
        try await Self.waitUntil { await queue.count(chat: key) == 1 }
        async let newer = queue.turn(chat: key, priority: .live, replaces: "C0123/1.000100")
        #expect(try await older == false, "superseded: not sent")
        clock.advance(2)
        await queue.refresh(chat: key)
        #expect(try await newer == true)
    }

    @Test func aHoldAfterA429KeepsTheQueueWaiting() {
        var pacer = MethodPacer()
        pacer.hold(method: "chat.postMessage", seconds: 30, now: 1000)
        #expect(pacer.wait(key: "chat.postMessage/C0123", now: 1000) == 30)
        #expect(pacer.wait(key: "chat.postMessage/C0123", now: 1031) == 0)
        #expect(MethodPacer.split("chat.postMessage/C0123") == ("chat.postMessage", "C0123"))
        #expect(MethodPacer.split("chat.update") == ("chat.update", nil))
    }

    /// Two calls waiting out a hold must not go together when it ends: the second would reach
    /// Slack before the first's answer says whether the limit is over, inside a window a new
    /// 429 may have announced (slack-api.md §8, Retry-After). After a hold a method's calls go
    /// one at a time, at its tier's rate.
    @Test func afterAHoldCallsGoOneAtATime() {
        var pacer = MethodPacer()
        _ = pacer.reserve(method: "chat.update", channel: "C0123", now: 990)
        pacer.hold(method: "chat.update", seconds: 8, now: 1000)
        #expect(pacer.wait(key: "chat.update", now: 1008) == 0)
        pacer.take(key: "chat.update", now: 1008)
        #expect(pacer.wait(key: "chat.update", now: 1008.5) >= MethodPacer.answerWait, "none goes while the first is out")
        pacer.ended(method: "chat.update", answered: true)
        let next = pacer.wait(key: "chat.update", now: 1008)
        #expect(abs(next - 1 / MethodTier.tier3.perSecond) < 0.001, "answered: the tier's rate again, from one call: \(next)")
        #expect(pacer.wait(key: "chat.update", now: 1008, keeping: 1) > next, "a live edit still leaves one for a final")
        #expect(pacer.trying.isEmpty)
        // A call lost on the way says nothing of the limit: the next one goes alone again.
        pacer.hold(method: "chat.update", seconds: 1, now: 1010)
        pacer.take(key: "chat.update", now: 1011)
        pacer.ended(method: "chat.update", answered: false)
        #expect(pacer.trying["chat.update"] == false)
    }
}
