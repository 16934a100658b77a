import Testing

@testable import DiscordPlugin

@Suite("Coalescer")
struct CoalescerTests {
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    @Test func theFirstUpdatePostsTheTail() {
        var c = Coalescer()
        c.update(revision: 1, chunks: [], tail: "thinking")
        #expect(c.next(now: at(0)) == .post(index: 0, content: "thinking"))
        // One action at a time.
        #expect(c.next(now: at(1)) == .idle)
        c.posted(index: 0, messageID: "m0", content: "thinking", now: at(50))
        #expect(c.next(now: at(51)) == .idle)
    }

    @Test func updatesWithinTheIntervalBecomeOneEditWithTheNewestText() {
        var c = Coalescer()
        c.update(revision: 1, chunks: [], tail: "a")
        _ = c.next(now: at(0))
        c.posted(index: 0, messageID: "m0", content: "a", now: at(100))
        c.update(revision: 2, chunks: [], tail: "ab")
        #expect(c.next(now: at(200)) == .wait(until: at(900)))
        c.update(revision: 3, chunks: [], tail: "abc")
        c.update(revision: 4, chunks: [], tail: "abcd")
        #expect(c.next(now: at(900)) == .edit(index: 0, messageID: "m0", content: "abcd"))
        c.edited(index: 0, content: "abcd", now: at(950))
        #expect(c.next(now: at(960)) == .idle)
        #expect(c.settled)
    }

    @Test func anOlderRevisionIsIgnored() {
        var c = Coalescer()
        let newer = c.update(revision: 5, chunks: [], tail: "new")
        let older = c.update(revision: 4, chunks: [], tail: "old")
        #expect(newer)
        #expect(!older)
        #expect(c.tail == "new")
    }

    @Test func aFinishedChunkFreezesItsMessageAndTheTailMovesToANewOne() {
        var c = Coalescer()
        c.update(revision: 1, chunks: [], tail: "part one, still typing")
        _ = c.next(now: at(0))
        c.posted(index: 0, messageID: "m0", content: "part one, still typing", now: at(10))
        c.update(revision: 2, chunks: ["part one, done"], tail: "part two")
        // The old tail message may not be edited yet, so the new tail is posted first...
        #expect(c.next(now: at(20)) == .post(index: 1, content: "part two"))
        c.posted(index: 1, messageID: "m1", content: "part two", now: at(40))
        // ...and the finished chunk replaces the old tail as soon as its interval allows.
        #expect(c.next(now: at(41)) == .wait(until: at(810)))
        #expect(c.next(now: at(810)) == .edit(index: 0, messageID: "m0", content: "part one, done"))
        c.edited(index: 0, content: "part one, done", now: at(830))
        #expect(c.next(now: at(831)) == .idle)
    }

    @Test func messagesArePostedInOrder() {
        var c = Coalescer()
        c.update(revision: 1, chunks: ["one", "two", "three"], tail: "four")
        var posted: [String] = []
        var now = 0
        // Bounded: a regression that never posts the fourth message fails instead of hanging.
        for _ in 0..<1000 {
            switch c.next(now: at(now)) {
            case .post(let i, let content):
                #expect(i == posted.count)
                posted.append(content)
                c.posted(index: i, messageID: "m\(i)", content: content, now: at(now))
            case .idle: break
            default: Issue.record("only posts expected")
            }
            if posted.count == 4 { break }
            now += 10
        }
        #expect(posted == ["one", "two", "three", "four"])
        #expect(c.next(now: at(now + 1)) == .idle)
    }

    @Test func aRestartedCoalescerEditsOnlyWhatChanged() {
        let slots = [
            Coalescer.Slot(messageID: "m0", fingerprint: Coalescer.fingerprint("one"), lastChange: nil),
            Coalescer.Slot(messageID: "m1", fingerprint: Coalescer.fingerprint("tw"), lastChange: nil),
        ]
        var c = Coalescer(posted: slots)
        c.update(revision: 9, chunks: ["one"], tail: "two")
        #expect(c.next(now: at(0)) == .edit(index: 1, messageID: "m1", content: "two"))
    }

    @Test func aFailureWaitsBeforeTryingAgainWithTheNewestText() {
        var c = Coalescer()
        c.update(revision: 1, chunks: [], tail: "x")
        _ = c.next(now: at(0))
        c.failed(now: at(100), retry: .seconds(2))
        c.update(revision: 2, chunks: [], tail: "xy")
        #expect(c.next(now: at(200)) == .wait(until: at(2100)))
        #expect(c.next(now: at(2100)) == .post(index: 0, content: "xy"))
    }

    @Test func contentIsClampedToTheMessageLimit() {
        var c = Coalescer(limit: 2000)
        c.update(revision: 1, chunks: [String(repeating: "é", count: 2500)], tail: "")
        guard case .post(_, let content) = c.next(now: at(0)) else { Issue.record("expected a post"); return }
        #expect(content.utf16.count <= 2000)
    }

    @Test func anEmptyTailPostsNothing() {
        var c = Coalescer()
        c.update(revision: 1, chunks: [], tail: "  \n")
        #expect(c.next(now: at(0)) == .idle)
    }

    /// Random updates over 20 s: no message is ever edited twice within the interval, and at the
    /// end every message shows the newest text.
    @Test(arguments: [7, 8, 9])
    func randomStreamsRespectTheIntervalAndSettle(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var c = Coalescer()
        var lastChange: [Int: Int] = [:]
        var chunks: [String] = []
        var tail = ""
        var rev = 0
        var pending: (action: Coalescer.Action, doneAt: Int)?
        for now in 0..<20_000 {
            if now < 15_000 && Int.random(in: 0..<50, using: &random) == 0 {
                rev += 1
                tail += "w\(rev) "
                if Int.random(in: 0..<6, using: &random) == 0 {
                    chunks.append(tail)
                    tail = ""
                }
                c.update(revision: rev, chunks: chunks, tail: tail)
            }
            if let p = pending, p.doneAt == now {
                switch p.action {
                case .post(let i, let content): c.posted(index: i, messageID: "m\(i)", content: content, now: at(now))
                case .edit(let i, _, let content): c.edited(index: i, content: content, now: at(now))
                default: break
                }
                pending = nil
            }
            guard pending == nil else { continue }
            let action = c.next(now: at(now))
            switch action {
            case .post(let i, _):
                lastChange[i] = now
                pending = (action, now + Int.random(in: 20...120, using: &random))
            case .edit(let i, _, _):
                if let last = lastChange[i] { #expect(now - last >= 800) }
                lastChange[i] = now
                pending = (action, now + Int.random(in: 20...120, using: &random))
            default: break
            }
        }
        #expect(c.settled)
        #expect(c.slots.count == c.desired.count)
    }
}
