import DiscordPayloads
import FuzzDriver
import PiRelaySDK

/// A gateway frame from Discord (or from whoever sits on the connection) through the Discord
/// plugin's decoding: the frame, the dispatch by its name, and each payload decoder on `d`
/// whatever the name says, so all of them see every shape the fuzzer makes.
enum GatewayPayloadFuzz {
    static func test(_ input: FuzzInput) {
        var input = input
        let text = String(decoding: input.rest(), as: UTF8.self)
        guard let payload = try? GatewayPayload.decode(text) else { return }
        _ = GatewayOpcode(rawValue: payload.op)
        if let name = payload.eventName { _ = GatewayEvent.decode(name: name, data: payload.data) }
        _ = ReadyInfo(payload.data)
        _ = IncomingMessage(payload.data)
        _ = Interaction(payload.data)
        _ = ThreadInfo(payload.data)
        for thread in payload.data["threads"]?.arrayValue ?? [] { _ = ThreadInfo(thread) }
    }
}
