import PiRelaySDK

/// What the plugin under check is started with: its section, its environment, and, with a
/// driver, the chat the driver plays in and the user in it, who is let through.
package struct CheckSetting: Sendable {
    package struct Failure: Error, CustomStringConvertible { package let description: String }

    /// The one session the check's chat is bound to.
    package static let sessionID = "c4ec0001"

    /// The section as written (`--config`, or config.yaml's), and the file it came from.
    package var config: JSONValue
    package var source: PluginSectionSource?
    package var environment: [String: String]
    /// The driver's keys (its fake service's `apiBase`, say), laid over the section as checked.
    package var overlay: [String: JSONValue] = [:]
    package var chat: CheckChat?
    /// Without a driver the plugin is started as `setup` starts it (PROTOCOL.md §3, `checkOnly`):
    /// it answers the protocol but does not poll or connect, so a check with the real token
    /// never takes updates meant for the running daemon's instance.
    package var checkOnly: Bool { chat == nil }

    /// Takes the driver's answer to `start`: its variables, its keys laid over the section, its chat.
    package mutating func apply(_ started: JSONValue) throws(Failure) {
        for (key, value) in started["env"]?.objectValue ?? [:] {
            guard let text = value.stringValue else { throw Failure(description: "env.\(key) is not a string") }
            environment[key] = text
        }
        if case .object(let keys)? = started["config"] { overlay = keys }
        guard let chat = started["chat"] else { throw Failure(description: "the answer to start has no chat") }
        let pairing = started["pairing"]?.stringValue
        guard let target = try? Target(json: chat["target"] ?? .null), let user = chat["user"]?.stringValue ?? pairing.map({ _ in "" }) else {
            throw Failure(description: "chat needs a target {channel, thread?} and a user (or a pairing code)")
        }
        self.chat = CheckChat(
            target: target, user: user, userName: chat["userName"]?.stringValue ?? user, edits: started["edits"]?.boolValue ?? true,
            pairing: pairing)
    }

    /// `section` (checked against the hello's schema, or as written) with the driver's keys laid
    /// over it; the daemon lets the chat's user through, and so does the section the plugin reads.
    package func welcomeConfig(_ section: JSONValue) -> JSONValue {
        var config = section.objectValue == nil ? [:] : section
        for (key, value) in overlay { config[key] = value }
        guard let chat, !chat.user.isEmpty else { return config }
        var allowed = config["allowedUsers"]?.arrayValue ?? []
        if !allowed.contains(.string(chat.user)) { allowed.append(.string(chat.user)) }
        config["allowedUsers"] = .array(allowed)
        return config
    }

    /// The welcome: one idle session, bound to the driver's chat.
    package func welcome(plugin: String, section: JSONValue, stateDir: String, messenger: String) -> Welcome {
        let session = SessionSummary(id: Self.sessionID, name: "check", cwd: stateDir, state: "idle")
        return .alone(
            plugin: plugin, config: welcomeConfig(section), folder: stateDir, sessions: [session],
            bindings: chat.map {
                [BindingSummary(messenger: messenger, channel: $0.target.channel, thread: $0.target.thread, sessionID: Self.sessionID)]
            } ?? [], allowedUsers: chat.map { $0.user.isEmpty ? [] : [$0.user] } ?? [], checkOnly: checkOnly)
    }
}
