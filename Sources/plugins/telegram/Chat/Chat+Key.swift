import PiRelaySDK

extension Chat {
    /// The conversation's key, for the lane its messages are handled in.
    var key: String { thread ?? channel }
}
