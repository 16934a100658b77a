import PiRelaySDK

/// One gateway frame: `{"op", "d", "s", "t"}`.
package struct GatewayPayload: Sendable, Equatable {
    package var op: Int
    /// `d`: the frame's data.
    package var data: JSONValue
    /// `s`: the sequence number of a dispatch.
    package var sequence: Int?
    /// `t`: the event name of a dispatch.
    package var eventName: String?

    package struct DecodeError: Error, CustomStringConvertible {
        package let description: String
    }

    package static func decode(_ text: String) throws -> GatewayPayload {
        let value = try JSONValue.parse(text)
        guard let op = value["op"]?.intValue else { throw DecodeError(description: "gateway frame without an op") }
        return GatewayPayload(op: op, data: value["d"] ?? .null, sequence: value["s"]?.intValue, eventName: value["t"]?.stringValue)
    }

    /// The text of a frame the client sends (`s` and `t` are only for dispatches).
    package static func encode(_ op: GatewayOpcode, _ data: JSONValue) -> String {
        JSONValue.object(["op": .number(Double(op.rawValue)), "d": data]).serialized()
    }
}
