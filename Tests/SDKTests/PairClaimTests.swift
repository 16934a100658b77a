import Testing

@testable import PiRelaySDK

/// What messengers take for a pairing claim (`/pair CODE`, Telegram's `/start CODE`).
@Suite struct PairClaimTests {
    @Test func aClaimIsPairOrStartWithACode() {
        #expect(ChatPairParams.code(in: "/pair K7QM3XPA9T") == "K7QM3XPA9T")
        #expect(ChatPairParams.code(in: "  /PAIR   k7qm-3xpa 9t \n") == "k7qm-3xpa 9t")
        #expect(ChatPairParams.code(in: "/pair") == "")
        #expect(ChatPairParams.code(in: "/start K7QM3XPA9T") == nil)
        #expect(ChatPairParams.code(in: "/start K7QM3XPA9T", start: true) == "K7QM3XPA9T")
        #expect(ChatPairParams.code(in: "/start", start: true) == nil)
    }

    @Test func otherTextIsNoClaim() {
        #expect(ChatPairParams.code(in: "/pairing now") == nil)
        #expect(ChatPairParams.code(in: "please /pair ABC") == nil)
        #expect(ChatPairParams.code(in: "/sessions") == nil)
        #expect(ChatPairParams.code(in: "/starter ABC", start: true) == nil)
    }
}
