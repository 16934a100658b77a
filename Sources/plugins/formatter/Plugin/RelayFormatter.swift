import PiRelaySDK

/// The formatter plugin: turns the supervisor's run views into chat messages (tool summaries,
/// splitting to the messenger's limit, tables as code blocks, notices, redaction).
public struct RelayFormatter: Plugin {
    public static let manifest = PluginManifest(
        name: "formatter", version: "0.1.0", roles: ["formatter"],
        summary: "turns agent runs into chat messages: tool summaries, splitting, tables, notices, redaction",
        config: FormatterConfig.schema)

    let config: FormatterConfig
    let stats = RequestStats()
    let settledTexts = SettledTexts()
    let redactedTexts = RedactedTexts()

    public init(context: PluginContext) async throws {
        do {
            config = try FormatterConfig(json: context.config)
        } catch {
            throw PluginExit.notConfigured(error.description)
        }
    }

    init(config: FormatterConfig) {
        self.config = config
    }

    public func handle(_ request: PluginRequest) async throws -> JSONValue {
        try respond(to: request.method, params: request.params)
    }

    /// Everything but a final, on the thread that read it: a live view reads only what the run
    /// added since the last one, and the wake-ups of a trip through the task pool cost more than
    /// that. A final renders the whole answer, milliseconds for a long one, so it runs in the
    /// pool, beside the others.
    public func answerAtOnce(_ request: PluginRequest) -> Result<JSONValue, RemoteError>? {
        guard request.name != .formatFinal else { return nil }
        do { return .success(try respond(to: request.method, params: request.params)) } catch { return .failure(error) }
    }
}
