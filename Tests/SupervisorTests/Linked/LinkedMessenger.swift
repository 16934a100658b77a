import PiRelaySDK

/// A messenger linked into the test process (`InProcessPlugin`): the same protocol as any
/// messenger, on a pipe pair, with no process of its own. It speaks the web page's dialect
/// (`html`), as the web dashboard will. What the supervisor delivers to it is
/// kept in `LinkedChats`, under its state folder (one per test's home).
struct LinkedMessenger: Plugin {
    static let manifest = PluginManifest(
        name: "deskchat", version: "1", roles: ["messenger"], limits: ["maxMessageLength": 4000, "liveIntervalMs": 100],
        summary: "a chat inside the test process", dialect: .html)

    let stateDir: String

    init(context: PluginContext) async throws {
        stateDir = context.stateDir
        await LinkedChats.shared.joined(context.stateDir, connection: context.connection)
    }

    func handle(_ request: PluginRequest) async throws -> JSONValue {
        await LinkedChats.shared.heard(stateDir, method: request.method, params: request.params)
        // A post answers with the message it made, as a messenger would.
        return request.method == MethodName.chatPost.rawValue ? ["messageID": .string("m\(request.id)")] : [:]
    }

    func handle(notification method: String, params: JSONValue) async {
        await LinkedChats.shared.heard(stateDir, method: method, params: params)
    }
}
