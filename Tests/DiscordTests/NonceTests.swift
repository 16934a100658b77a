import Testing

@testable import DiscordPlugin

@Suite("Nonces")
struct NonceTests {
    @Test func atMost25CharactersForAnyInput() {
        for base in ["", "d1", String(repeating: "x", count: 5000), "ünïcødé-🙂"] {
            for index in [0, 1, 35, 36, 1_000_000, Int(Int32.max)] {
                #expect(Nonce.make(base, index: index).count <= 25)
            }
            #expect(Nonce.make(base, part: "f12345").count <= 25)
        }
    }

    @Test func sameDeliveryAndChunkGiveTheSameNonce() {
        #expect(Nonce.make("delivery-42", index: 3) == Nonce.make("delivery-42", index: 3))
    }

    @Test func differentDeliveriesOrChunksGiveDifferentNonces() {
        var seen: Set<String> = []
        for d in 0..<300 {
            for i in 0..<10 { seen.insert(Nonce.make("d\(d)", index: i)) }
            seen.insert(Nonce.make("d\(d)", part: "f0"))
        }
        #expect(seen.count == 300 * 11)
    }
}
