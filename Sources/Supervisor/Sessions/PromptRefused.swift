import PiRelaySDK

/// A prompt a terminal session's extension refused before pi ran it, with the reason: pi would
/// fail it where no extension can see (no model, no API key, an expired login; the pi extension
/// spec's §11 trap 6), so the extension checks first and says what to do in the terminal.
package struct PromptRefused: Error, CustomStringConvertible {
    package let session: String
    /// The extension's words, e.g. "no API key for anthropic: run /login in the terminal".
    package let reason: String

    package var description: String {
        "⚠️ \(session) did not take your prompt: \(reason)"
    }

    /// For the control socket and the chat commands, which answer with a `RemoteError`.
    package var remote: RemoteError {
        RemoteError(code: .piError, message: "\(session) did not take the prompt: \(reason)")
    }
}
