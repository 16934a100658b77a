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

    /// A restarted plugin does not know what its predecessor just sent: no burst at first.
    @Test func aFreshStartBeginsWithAnEmptyBucket() {
        var pacer = SendPacer()
        pacer.startedAt = 100
        #expect(pacer.reserve(chat: "42", now: 100) >= 0.9)
        var later = SendPacer()
        later.startedAt = 100
        #expect(later.reserve(chat: "42", now: 110) == 0)
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
        pacer.startedAt = 50
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
