import PiRelaySDK

/// One entry of `pi-relayd plugins --json`.
struct PluginInfo: Sendable, CustomStringConvertible {
    let json: JSONValue

    var name: String { json["name"]?.stringValue ?? "" }
    var state: String { json["state"]?.stringValue ?? "" }
    var pid: Int32? { json["pid"]?.intValue.map { Int32($0) } }
    var restarts: Int { json["restarts"]?.intValue ?? 0 }
    var outbox: Int { json["outbox"]?.intValue ?? 0 }
    var pendingRequests: Int { json["pendingRequests"]?.intValue ?? 0 }
    var reason: String { json["reason"]?.stringValue ?? "" }
    var lastStderr: [String] { (json["lastStderr"]?.arrayValue ?? []).compactMap(\.stringValue) }

    var description: String { json.serialized() }
}
