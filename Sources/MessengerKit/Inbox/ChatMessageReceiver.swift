import PiRelaySDK

/// What takes a user's message: the supervisor, over the plugin's connection; in tests, a fake.
public protocol ChatMessageReceiver: Sendable {
    func chatMessage(_ params: ChatMessageParams, timeout: Duration) async throws -> ChatMessageResult
    /// A pairing claim's answer, or a "try again" when the supervisor could not be asked.
    func pair(_ chat: Chat, code: String) async -> Reply
}

extension PluginConnection: ChatMessageReceiver {
    public func chatMessage(_ params: ChatMessageParams, timeout: Duration) async throws -> ChatMessageResult {
        try await request(.chatMessage, params, timeout: timeout)
    }
}
