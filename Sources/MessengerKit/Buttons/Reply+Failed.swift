import PiRelaySDK

extension Reply {
    /// What a user sees when the supervisor refused their request or could not be asked: "Not
    /// authorized.", the supervisor's own words, or that it did not answer.
    public init(failed error: any Error, ephemeral: Bool = false) {
        let text: String
        if let error = error as? RemoteError {
            text = error.code == .notAuthorized ? "Not authorized." : "⚠️ \(error.message.isEmpty ? error.code.rawValue : error.message)"
        } else {
            text = "⚠️ pi-relayd did not answer (\(error))."
        }
        self.init(text: text, ephemeral: ephemeral)
    }
}
