import PiRelaySDK

/// A delivery `plugin check` sends, and may send again with the same id after a crash.
struct CheckDelivery: Sendable {
    var id: String
    var method: String
    var params: JSONValue
}
