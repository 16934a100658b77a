import PiRelaySDK

extension SessionControl {
    /// The methods that are one pi command each; a session whose pi died is restarted first.
    package func piCommand(_ method: ControlMethod, _ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        let pi = try await running(session)
        switch method {
        case .abort:
            _ = try await pi.command(.abort, timeout: .seconds(60))
            return ["aborted": true]
        case .compact:
            let response = try await pi.command(.compact(customInstructions: params["instructions"]?.stringValue), timeout: .seconds(600))
            return (try? response.data?.parse()) ?? ["compacted": true]
        case .newConversation:
            let response = try await pi.command(.newSession, timeout: .seconds(120))
            try await session.refreshState()
            return (try? response.data?.parse()) ?? [:]
        case .model:
            guard let spec = params["model"]?.stringValue, let slash = spec.firstIndex(of: "/") else {
                throw RemoteError.invalidParams("model needs PROVIDER/MODEL, e.g. anthropic/claude-sonnet-4-5")
            }
            let provider = String(spec[..<slash]), modelID = String(spec[spec.index(after: slash)...])
            let response = try await pi.command(.setModel(provider: provider, modelID: modelID))
            await session.noteModel(spec)
            return (try? response.data?.parse()) ?? ["model": .string(spec)]
        case .thinking:
            guard let level = params["level"]?.stringValue else { throw RemoteError.invalidParams("thinking needs a level") }
            _ = try await pi.command(.setThinkingLevel(level))
            try await session.refreshState()
            // pi clamps the level to what the model supports: say what it chose.
            return ["thinkingLevel": .string(await session.thinkingLevel ?? level)]
        case .state:
            let response = try await pi.command(.getState)
            return (try? response.data?.parse()) ?? [:]
        case .stats:
            let response = try await pi.command(.getSessionStats)
            return (try? response.data?.parse()) ?? [:]
        case .commands:
            let response = try await pi.command(.getCommands)
            return (try? response.data?.parse()) ?? ["commands": []]
        case .last:
            let response = try await pi.command(.getLastAssistantText)
            // pi omits `text` when there is none.
            let text = (try? response.data?.parse())?["text"]?.stringValue
            return ["text": JSONValue(text)]
        default:
            throw RemoteError.methodNotFound(method.rawValue)
        }
    }
}
