import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd plugin check MESSENGER --config SECTION.yaml --driver CMD`, the conformance suite of
/// docs/PROTOCOL.md §10, run on each in-tree messenger against the driver of its fake service,
/// and on the example messenger with its own driver. What a driver cannot play is skipped, never
/// passed; a messenger that posts twice after a crash fails, saying what was expected.
@Suite struct PluginCheckMessengerTests {
    struct Messenger: Sendable, CustomStringConvertible {
        var id: String
        /// The executable linked into the home's plugins folder as `id`, or an example copied there.
        var product: String?
        var example: String?
        var driver: String
        var section: String
        /// Steps the driver cannot play, and why they cannot be played on that service.
        var skipped: Set<String>

        var description: String { id }
    }

    static let messengers: [Messenger] = [
        Messenger(
            id: "telegram", product: "pi-relay-telegram", driver: RepoPaths.root + "/Tests/Fakes/fake_telegram/check_driver.py",
            section: "requireMention: true\n", skipped: ["duplicate inbound"]),
        Messenger(
            id: "discord", product: "pi-relay-discord", driver: RepoPaths.root + "/Tests/Fakes/fake_discord/check_driver.py",
            section: "requireMention: true\n", skipped: []),
        Messenger(
            id: "slack", product: "pi-relay-slack", driver: RepoPaths.root + "/Tests/Fakes/fake_slack/check_driver.py",
            section: "requireMention: true\n", skipped: []),
        // The dashboard is its own service: the driver plays a browser that signs in by pairing.
        Messenger(
            id: "web", product: "pi-relay-web", driver: RepoPaths.root + "/Tests/Fakes/web_browser/check_driver.py",
            section: "roots: [/tmp]\n", skipped: []),
        Messenger(
            id: "filechat", example: RepoPaths.fileMessengerExample, driver: RepoPaths.root + "/examples/file-messenger-driver.py",
            section: "user: checker\n", skipped: ["duplicate inbound", "question by button"]),
    ]

    @Test(.timeLimit(ScenarioGate.limit(minutes: 8)), arguments: messengers)
    func messengerConformsWithItsDriver(_ messenger: Messenger) async throws {
        try await TestHome.with(gated: false) { home in
            try home.linkBuiltPlugin("pi-relay-formatter", as: "formatter")
            if let product = messenger.product { try home.linkBuiltPlugin(product, as: messenger.id) }
            if let example = messenger.example {
                try FileManager.default.copyItem(atPath: example, toPath: home.pluginsDir + "/" + messenger.id)
            }
            let section = home.path + "/\(messenger.id)-section.yaml"
            try messenger.section.write(toFile: section, atomically: true, encoding: .utf8)
            let check = try await home.cli.run(
                ["plugin", "check", messenger.id, "--config", section, "--driver", "python3 " + messenger.driver, "--json"],
                timeout: .seconds(420))
            #expect(check.status == 0, "\(check)")
            let steps = try check.json()["checks"]?.arrayValue ?? []
            let outcome = Dictionary(steps.map { ($0["name"]?.stringValue ?? "", $0["outcome"]?.stringValue ?? "") }) { first, _ in first }
            let failed = steps.filter { $0["outcome"] == "failed" }.map { "\($0["name"] ?? .null): \($0["detail"] ?? .null)" }
            #expect(failed.isEmpty, "\(failed)")
            #expect(Set(outcome.filter { $0.value == "skipped" }.keys) == messenger.skipped, "\(check.stdout)")
            for step in ["inbound prompt", "stream with edits", "long final", "question closed", "exactly once after SIGKILL"]
            where !messenger.skipped.contains(step) {
                #expect(outcome[step] == "passed", "\(step): \(check.stdout)")
            }
        }
    }

    /// The example as it was before it kept delivery ids on disk: it remembers them in memory
    /// only, so a final replayed after a SIGKILL shows twice, and the check says so.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aMessengerThatPostsTwiceAfterACrashFails() async throws {
        try await TestHome.with(gated: false) { home in
            try home.linkBuiltPlugin("pi-relay-formatter", as: "formatter")
            let example = try String(contentsOfFile: RepoPaths.fileMessengerExample, encoding: .utf8)
            let forgetful = example.replacingOccurrences(of: "chat.acted_on(message[\"id\"])", with: "chat.seen.add(message[\"id\"])")
            #expect(forgetful != example)
            let path = home.pluginsDir + "/filechat"
            try forgetful.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            let check = try await home.cli.run(
                ["plugin", "check", "filechat", "--driver", "python3 " + RepoPaths.root + "/examples/file-messenger-driver.py", "--json"],
                timeout: .seconds(240))
            #expect(check.status == 1, "\(check)")
            let report = try check.json()
            #expect(report["conforms"] == false)
            let step = (report["checks"]?.arrayValue ?? []).first { $0["name"] == "exactly once after SIGKILL" }
            #expect(step?["outcome"] == "failed", "\(check.stdout)")
            #expect(step?["detail"]?.stringValue?.contains("expected the final once after the replay, got it 2×") == true, "\(check.stdout)")
        }
    }

    /// Without a driver the messenger is started check-only, as setup starts it: the protocol
    /// steps pass, the service steps are skipped, and it never calls the service, so a check run
    /// with the real token takes no update from the daemon's running instance.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func withoutADriverTheMessengerLeavesTheServiceAlone() async throws {
        try await TestHome.with(gated: false) { home in
            try home.linkBuiltPlugin("pi-relay-telegram", as: "telegram")
            let fake = try await StackFake.telegram(folder: home.scratch, arguments: [])
            do {
                let section = home.path + "/telegram-section.yaml"
                try "apiBase: \(fake.apiBase)\n".write(toFile: section, atomically: true, encoding: .utf8)
                let check = try await home.cli(extra: ["TELEGRAM_BOT_TOKEN": "123456:TEST-telegram-token-abcdefghijklmnop"]).run(
                    ["plugin", "check", "telegram", "--config", section, "--json"], timeout: .seconds(120))
                #expect(check.status == 0, "\(check)")
                let steps = try check.json()["checks"]?.arrayValue ?? []
                #expect(steps.filter { $0["outcome"] == "skipped" }.count == 7, "\(check.stdout)")
                // Not even getMe: a check-only instance answers the protocol and leaves the service alone.
                let calls = try await fake.get("/requests")["requests"]?.arrayValue ?? []
                #expect(calls.isEmpty, "\(calls)")
            } catch {
                await fake.stop()
                throw error
            }
            await fake.stop()
        }
    }
}
