import Testing

extension Daemon {
    /// A messenger whose token its service refused while it ran: it ends as not configured, its
    /// reason saying `words` and naming `variable`; it is not restarted in a loop; what it could
    /// not post stays in its outbox, and its log (`log`) never says it dropped it. `pi-relayd
    /// status` exits 2 (README, "Exit codes") and says why.
    func expectTokenRefused(
        _ plugin: String, saying words: String, naming variable: String, log: () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let info = try await waitForPlugin(plugin, "not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
        #expect(info.reason.contains(words) && info.reason.contains(variable), "\(info)", sourceLocation: sourceLocation)
        let kept = try await waitForPlugin(plugin, "what it could not post kept", timeout: .seconds(60)) { $0.outbox >= 1 }
        #expect(kept.restarts == info.restarts, "not restarted in a loop: \(kept)", sourceLocation: sourceLocation)
        #expect(!log().contains("dropped"), "\(log().suffix(2000))", sourceLocation: sourceLocation)
        let status = try await home.run("status")
        #expect(status.status == 2 && status.stdout.contains(variable), "\(status)", sourceLocation: sourceLocation)
    }
}
