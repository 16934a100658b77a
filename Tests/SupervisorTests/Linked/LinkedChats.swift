import PiRelaySDK

/// What each linked messenger heard from the supervisor, and its connection to it, by the
/// messenger's state folder.
actor LinkedChats {
    static let shared = LinkedChats()

    struct Heard: Sendable {
        let method: String
        let params: JSONValue
    }

    private var connections: [String: PluginConnection] = [:]
    private var heard: [String: [Heard]] = [:]

    func joined(_ stateDir: String, connection: PluginConnection) {
        connections[stateDir] = connection
    }

    func heard(_ stateDir: String, method: String, params: JSONValue) {
        heard[stateDir, default: []].append(Heard(method: method, params: params))
    }

    func connection(_ stateDir: String) -> PluginConnection? { connections[stateDir] }

    func all(_ stateDir: String) -> [Heard] { heard[stateDir] ?? [] }
}
