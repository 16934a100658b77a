import Foundation
import PiRelaySDK

extension Scenario {
    /// Runs `body` with a fresh fake Discord, and stops the fake (and any plugin still running
    /// from `plugins`) whatever happens.
    static func run(
        heartbeatMs: Int = 5000, extraChannels: [String] = [],
        _ body: (Scenario) async throws -> Void
    ) async throws {
        let s = try await Scenario(heartbeatMs: heartbeatMs, extraChannels: extraChannels)
        do {
            try await body(s)
        } catch {
            await s.stop()
            throw error
        }
        await s.stop()
    }

    /// Polls `check` until it returns a value or `timeout` passes.
    func eventually<T>(_ timeout: Duration = .seconds(20), _ check: () async throws -> T?) async rethrows -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let v = try await check() { return v }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return try await check()
    }

    func interaction(_ id: String) async throws -> JSONValue {
        try await fake.get("/interactions/\(id)")
    }

    /// The bot's messages in a channel whose current content contains `text`.
    func botMessages(_ channel: String, containing text: String) async throws -> [JSONValue] {
        try await fake.messages(channel: channel).filter { $0["content"]?.stringValue?.contains(text) == true }
    }

    func dmChannel(_ user: String) async throws -> String {
        try await fake.post("/dm", ["user_id": .string(user)])["channel"]?["id"]?.stringValue ?? ""
    }
}
