import PiRelaySDK

/// What takes a user's message: the supervisor, over the plugin's connection; in tests, a fake.
public protocol ChatMessageReceiver: Sendable {
    func chatMessage(_ params: ChatMessageParams, timeout: Duration) async throws -> ChatMessageResult
}

extension PluginConnection: ChatMessageReceiver {
    public func chatMessage(_ params: ChatMessageParams, timeout: Duration) async throws -> ChatMessageResult {
        try await request(.chatMessage, params, timeout: timeout)
    }
}
