/// A config.yaml with timings short enough that restarts and failures happen within seconds.
/// Timeouts that a slow, loaded machine could trip by accident (hello, pong) stay generous
/// unless a test is about them.
struct TestConfig {
    var handshakeTimeoutSeconds = 10
    var pingIntervalSeconds = 1
    var pingTimeoutSeconds = 10
    var immediateRestarts: Int?
    var initialBackoffMs = 100
    var maxBackoffMs = 5000
    var jitter: Double?
    var crashLoopCount: Int?
    var shutdownGraceMs = 2000
    var disabled: [String] = []
    var logMaxBytes: Int?
    var logKeep: Int?
    var outboxLimit: Int?

    var yaml: String {
        var lines = [
            "plugins:",
            "  handshakeTimeoutSeconds: \(handshakeTimeoutSeconds)",
            "  pingIntervalSeconds: \(pingIntervalSeconds)",
            "  pingTimeoutSeconds: \(pingTimeoutSeconds)",
            "  shutdownGraceMs: \(shutdownGraceMs)",
        ]
        if let outboxLimit { lines.append("  outboxLimit: \(outboxLimit)") }
        lines += [
            "  restart:",
            "    initialBackoffMs: \(initialBackoffMs)",
            "    maxBackoffMs: \(maxBackoffMs)",
        ]
        if let immediateRestarts { lines.append("    immediateRestarts: \(immediateRestarts)") }
        if let jitter { lines.append("    jitter: \(jitter)") }
        if let crashLoopCount { lines.append("    crashLoopCount: \(crashLoopCount)") }
        if !disabled.isEmpty {
            lines.append("  disabled:")
            lines += disabled.map { "    - \($0)" }
        }
        if logMaxBytes != nil || logKeep != nil {
            lines.append("logs:")
            if let logMaxBytes { lines.append("  maxBytes: \(logMaxBytes)") }
            if let logKeep { lines.append("  keep: \(logKeep)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
