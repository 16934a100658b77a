import PiRelaySDK

/// config.yaml for the full stack: the harness's quick plugin timings, the fake pi as
/// `pi.command`, and a `discord:` section pointing the real plugin at the fake Discord, with
/// alice and bob allowed unless a test says otherwise.
struct StackConfig {
    var plugins = TestConfig()
    /// `discord.channels`: guild channels bound to projects (id, cwd, name).
    var channels: [(id: String, cwd: String, name: String)] = []
    /// `discord.allowedUsers`.
    var allowedUsers = [StackUser.alice.id, StackUser.bob.id]
    /// `discord.requireMention` as written in config.yaml (`false`, `no`...); nil leaves the default (true).
    var requireMention: String?
    var logLevel = "debug"
    /// `sessions.spawnLimit`; nil leaves the default.
    var spawnLimit: Int?
    /// `sessions.limits` keys, as `key: value` lines.
    var sessionLimits: [String] = []
    /// More `discord:` keys, as `key: value` lines (`dms: ignore`, say).
    var discordKeys: [String] = []
    /// More top-level YAML, written as is (an `approvals:` section, say).
    var extra = ""

    static var fakePi: String { RepoPaths.root + "/Tests/Fakes/fake-pi/pi" }

    func yaml(apiBase: String, agentDir: String, workspace: String) -> String {
        var lines = [
            plugins.yaml + "logs:",
            "  level: \(logLevel)",
            "pi:",
            "  command: \(Self.quoted(Self.fakePi))",
            "  agentDir: \(Self.quoted(agentDir))",
            // The fake pi is Python: on a loaded machine its first answer can take a while.
            "  startTimeoutSeconds: 60",
            "sessions:",
            "  defaultCwd: \(Self.quoted(workspace))",
        ]
        if let spawnLimit { lines.append("  spawnLimit: \(spawnLimit)") }
        if !sessionLimits.isEmpty { lines += ["  limits:"] + sessionLimits.map { "    " + $0 } }
        lines += [
            "discord:",
            "  apiBase: \(Self.quoted(apiBase))",
            "  allowedUsers: [\(allowedUsers.map { "\"\($0)\"" }.joined(separator: ", "))]",
            "  guilds: [\"\(StackHome.guild)\"]",
        ]
        if let requireMention { lines.append("  requireMention: \(requireMention)") }
        lines += discordKeys.map { "  " + $0 }
        if !channels.isEmpty {
            lines.append("  channels:")
            for c in channels {
                lines.append("    - {id: \"\(c.id)\", cwd: \(Self.quoted(c.cwd)), name: \(Self.quoted(c.name))}")
            }
        }
        return lines.joined(separator: "\n") + "\n" + extra
    }

    /// A YAML double-quoted scalar; JSON string escapes are valid YAML escapes.
    static func quoted(_ s: String) -> String { JSONValue.string(s).serialized() }
}
