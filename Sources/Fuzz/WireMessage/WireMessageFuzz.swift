import FuzzDriver
import PiRelaySDK

/// One line from a plugin through `WireMessage.decode`. Whatever it decodes to must encode as a
/// single line (no raw LF inside, or the peer would see two messages) that decodes back to a
/// message with the same encoding.
enum WireMessageFuzz {
    static func test(_ input: FuzzInput) {
        var input = input
        let line = input.rest()
        guard let message = try? WireMessage.decode(line) else { return }
        let encoded = message.encodedLine()
        FuzzDriver.require(encoded.last == 0x0A, "an encoded line must end in LF")
        let body = Array(encoded.dropLast())
        FuzzDriver.require(!body.contains(0x0A), "an encoded message holds a raw LF")
        let again: WireMessage
        do {
            again = try WireMessage.decode(body)
        } catch {
            FuzzDriver.require(false, "the encoding of a decoded message does not decode: \(error)")
            return
        }
        // Compared through the encoding: numbers too large for a Double become null once.
        FuzzDriver.require(
            again.encodedLine() == encoded,
            "re-encoding changed the message:\n\(String(decoding: encoded, as: UTF8.self))\n\(String(decoding: again.encodedLine(), as: UTF8.self))")
    }
}
