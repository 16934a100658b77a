import FoundationEssentials
import Testing

@testable import TelegramPlugin

/// Pacing with a fake clock: bursts within the budget go at once, more waits, groups are
/// slower, a 429 holds the chat and survives a save.
@Suite struct SendPacerTests {
    @Test func aPrivateChatGetsABurstThenOneASecond() {
        var pacer = SendPacer()
        #expect(pacer.reserve(chat: "42", now: 100) == 0)
        #expect(pacer.reserve(chat: "42", now: 100) == 0)
        let third = pacer.reserve(chat: "42", now: 100)
        #expect(third > 0.9 && third <= 1.0)
        #expect(pacer.reserve(chat: "43", now: 100) == 0, "another chat has its own budget")
    }

    /// A restarted plugin keeps what its predecessor spent, through the saved file: a chat it
    /// just wrote to twice waits (no 429), one it had not written to goes at once (no second
    /// lost), and a bucket full again is not saved at all.
    @Test func aRestartedPluginKeepsWhatItsPredecessorSpent() throws {
        var before = SendPacer()
        _ = before.reserve(chat: "42", now: 100)
        _ = before.reserve(chat: "42", now: 100)
        _ = before.reserve(chat: "7", now: 90)
        let file = try JSONEncoder().encode(before.saved(now: 100.1))
        let saved = try JSONDecoder().decode(SendPacer.self, from: file)
        #expect(Set(saved.buckets.keys) == ["42"], "chat 7's bucket is full again by 100.1")
        var after = SendPacer()
        after.keep(from: saved)
        let wait = after.reserve(chat: "42", now: 100.2)
        #expect(wait > 0.7 && wait <= 0.8, "\(wait)")
        #expect(after.reserve(chat: "43", now: 100.2) == 0)
        #expect(after.reserve(chat: "43", now: 100.2) == 0, "a chat not on file has its whole burst")
        #expect(after.saved(now: 200).buckets.isEmpty)
    }

    /// Live edits keep one write of a private chat's burst back: at one a second they still go,
    /// and a question between them goes at once.
    @Test func aLiveEditLeavesAWriteForAQuestion() {
        var pacer = SendPacer()
        #expect(pacer.wait(chat: "42", now: 100, keeping: 1) == 0)
        _ = pacer.reserve(chat: "42", now: 100)
        let next = pacer.wait(chat: "42", now: 100, keeping: 1)
        #expect(next > 0.99 && next <= 1.0, "the next live edit a second later: \(next)")
        #expect(pacer.wait(chat: "42", now: 100, keeping: 0) == 0, "a question now")
        #expect(pacer.wait(chat: "42", now: 100, keeping: 5) == next, "never more than the burst holds")
    }

    @Test func groupsAreHeldToTwentyAMinute() {
        var pacer = SendPacer()
        _ = pacer.reserve(chat: "-100", now: 0)
        _ = pacer.reserve(chat: "-100", now: 0)
        let wait = pacer.reserve(chat: "-100", now: 0)
        #expect(wait >= 3.0, "\(wait)")
    }

    @Test func aRetryAfterHoldsTheChatAndIsSaved() {
        var pacer = SendPacer()
        pacer.hold(chat: "42", seconds: 35, now: 1000)
        #expect(pacer.reserve(chat: "42", now: 1010) >= 25)
        #expect(pacer.reserve(chat: "7", now: 1010) == 0)
        let saved = pacer.saved(now: 1010)
        #expect(saved.holdLeft(chat: "42", now: 1020) == 15)
        #expect(saved.saved(now: 2000).holds.isEmpty, "a hold that ran out is not kept")
    }

    /// The send queue asks how long a write must wait before it takes it: the answer is the wait
    /// a reservation at that moment gives, for private chats, groups, bursts, the bot's global
    /// budget and 429 holds alike.
    @Test func theWaitBeforeAWriteIsTheWaitItsReservationGives() {
        var pacer = SendPacer()
        pacer.hold(chat: "9", seconds: 4, now: 100)
        var now = 100.0
        var generator = SystemRandomNumberGenerator()
        for step in 0..<400 {
            let chat = ["42", "-100", "9", String(step % 40)][Int.random(in: 0..<4, using: &generator)]
            now += [0, 0, 0.01, 0.3, 1.1][Int.random(in: 0..<5, using: &generator)]
            let asked = pacer.wait(chat: chat, now: now)
            let reserved = pacer.reserve(chat: chat, now: now)
            #expect(abs(asked - reserved) < 1e-9, "step \(step), chat \(chat): wait \(asked), reserve \(reserved)")
        }
    }
}
