import PiRelaySDK

/// A federation plugin linked into the test process: it holds the `federation` role and nothing
/// else, so a test speaks for the other machines through its connection (`LinkedChats`, under its
/// state folder), as pi-relay-federation would after reading the database.
struct LinkedFederation: Plugin {
    static let manifest = PluginManifest(name: "federation", version: "1", roles: ["federation"], summary: "the other machines, as a test says")

    let stateDir: String

    init(context: PluginContext) async throws {
        stateDir = context.stateDir
        await LinkedChats.shared.joined(context.stateDir, connection: context.connection)
    }

    func handle(_ request: PluginRequest) async throws -> JSONValue {
        await LinkedChats.shared.heard(stateDir, method: request.method, params: request.params)
        return [:]
    }

    func handle(notification method: String, params: JSONValue) async {
        await LinkedChats.shared.heard(stateDir, method: method, params: params)
    }
}
