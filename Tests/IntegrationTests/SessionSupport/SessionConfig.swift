import PiRelaySDK

/// A config.yaml whose sessions run the fake pi (Tests/Fakes/fake-pi), with its agent dir and
/// its stdin log (FAKE_PI_LOG) inside the test home. Plugin timings come from `TestConfig`.
struct SessionConfig: Sendable {
    /// `pi.command`: the fake by default; tests about a missing pi name something else.
    var command: String = SessionConfig.fakePi
    /// `pi.env`, on top of the agent dir and the stdin log.
    var env: [String: String] = [:]
    var startTimeoutSeconds = 30
    var dialogTimeoutSeconds: Int?
    var historyEvents: Int?
    var historyBytes: Int?
    var busyPolicy: String?
    /// `sessions.defaultCwd`.
    var defaultCwd: String?
    /// More top-level sections, as YAML (`approvals:`).
    var extraYAML = ""

    static var fakePi: String { RepoPaths.root + "/Tests/Fakes/fake-pi/pi" }

    func yaml(piLog: String, agentDir: String) -> String {
        var lines = [
            "pi:",
            "  command: \(Self.quoted(command))",
            "  agentDir: \(Self.quoted(agentDir))",
            "  startTimeoutSeconds: \(startTimeoutSeconds)",
        ]
        if let dialogTimeoutSeconds { lines.append("  dialogTimeoutSeconds: \(dialogTimeoutSeconds)") }
        // Short auto-retry backoff: the fake's default (2 s, doubling) would slow retry tests.
        var environment = ["FAKE_PI_LOG": piLog, "FAKE_PI_RETRY_BASE_MS": "50"]
        environment.merge(env) { _, new in new }
        lines.append("  env:")
        for (k, v) in environment.sorted(by: { $0.key < $1.key }) { lines.append("    \(k): \(Self.quoted(v))") }
        var sessions: [String] = []
        if let historyEvents { sessions.append("  historyEvents: \(historyEvents)") }
        if let historyBytes { sessions.append("  historyBytes: \(historyBytes)") }
        if let busyPolicy { sessions.append("  busyPolicy: \(busyPolicy)") }
        if let defaultCwd { sessions.append("  defaultCwd: \(Self.quoted(defaultCwd))") }
        if !sessions.isEmpty { lines += ["sessions:"] + sessions }
        return TestConfig().yaml + lines.joined(separator: "\n") + "\n" + extraYAML
    }

    /// A YAML double-quoted scalar; JSON string escapes are valid YAML escapes.
    static func quoted(_ s: String) -> String { JSONValue.string(s).serialized() }
}
