import PiRelaySDK

/// A delivery `plugin check` sends, and may send again with the same id after a crash.
package struct CheckDelivery: Sendable {
    package var id: String
    package var method: String
    package var params: JSONValue
}
