/// config.yaml for the chat end-to-end tests: the harness's quick restart timings, the fake pi as
/// `pi.command`, the fake messenger's allowlist, and the formatter and attachments sections
/// (each given as `key: value` lines).
struct E2EConfig {
    var plugins = TestConfig()
    var agentDir: String
    var formatter: [String] = []
    var attachments: [String] = []
    /// More keys of the fake messenger's section, beside its allowlist.
    var messenger: [String] = []
    /// More top-level YAML lines, as written (`metrics:` and its keys, say).
    var extra: [String] = []
    /// `pi.command`: the fake pi unless a test gives another.
    var piCommand = Self.fakePi

    static var fakePi: String { RepoPaths.root + "/Tests/Fakes/fake-pi/pi" }

    var yaml: String {
        var lines =
            [
                plugins.yaml,
                "pi:",
                "  command: \(piCommand)",
                "  agentDir: \(agentDir)",
                // The fake pi is Python: on a loaded machine its first answer can take a while.
                "  startTimeoutSeconds: 60",
                "fake-messenger:",
                "  allowedUsers: [\"\(E2EChatHome.user)\"]",
            ] + messenger.map { "  " + $0 }
        for (name, keys) in [("formatter", formatter), ("attachments", attachments)] where !keys.isEmpty {
            lines.append("\(name):")
            lines += keys.map { "  " + $0 }
        }
        return (lines + extra).joined(separator: "\n") + "\n"
    }
}
