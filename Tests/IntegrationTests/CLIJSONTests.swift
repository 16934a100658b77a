import Foundation
import PiRelaySDK
import Testing

/// The README promises `--json` on every command: checked against the built binary's own help,
/// and the three commands that lacked it (start, stop, logs) print what a script needs.
@Suite struct CLIJSONTests {
    /// The subcommand names under every SUBCOMMANDS heading of a `--help` text (the root's are
    /// grouped: DAEMON SUBCOMMANDS, SESSIONS SUBCOMMANDS…).
    static func subcommands(_ help: String) -> [String] {
        var names: [String] = []
        var listing = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasSuffix("SUBCOMMANDS:") && !line.hasPrefix(" ") {
                listing = true
                continue
            }
            // A list ends at the first blank line.
            if line.trimmingCharacters(in: .whitespaces).isEmpty { listing = false }
            // "abort, stop-run": a command with its aliases.
            guard listing, line.hasPrefix("  "), !line.hasPrefix("   "),
                let name = line.split(separator: " ").first.map({ String($0.trimmingCharacters(in: [","])) }), name != "help"
            else { continue }
            names.append(name)
        }
        return names
    }

    @Test func everyCommandTakesJSONAsTheREADMESays() async throws {
        try await TestHome.with(gated: false) { home in
            var missing: [String] = []
            var queue = Self.subcommands(try await home.run("--help").stdout).map { [$0] }
            #expect(queue.count > 20, "\(queue)")
            var asked = 0
            while let command = queue.popLast() {
                asked += 1
                try #require(asked < 200, "the help texts do not end: \(command)")
                let help = try await home.cli.run(command + ["--help"]).stdout
                let nested = Self.subcommands(help)
                if nested.isEmpty {
                    if !help.contains("--json") { missing.append(command.joined(separator: " ")) }
                } else {
                    queue += nested.map { command + [$0] }
                }
            }
            #expect(missing == [], "commands without --json")
        }
    }

    @Test func startStopAndLogsPrintJSON() async throws {
        let config = TestConfig(disabled: ["discord", "formatter", "attachments"])
        try await TestHome.with(config: config.yaml) { home in
            let started = try await home.run("start", "--json")
            #expect(started.status == 0, "\(started)")
            let start = try started.json()
            #expect(start["started"] == true && start["running"] == true, "\(started)")
            #expect((start["pid"]?.intValue ?? 0) > 0 && start["log"]?.stringValue?.hasSuffix("/logs/pi-relayd.log") == true)

            let again = try await home.run("start", "--json")
            #expect(try again.json()["started"] == false, "\(again)")

            let logs = try await home.run("logs", "--json", "--lines", "3")
            let lines = logs.stdout.split(separator: "\n")
            #expect(logs.status == 0 && (1...3).contains(lines.count), "\(logs)")
            let parsed = try lines.map { try JSONValue.parse(String($0)) }
            #expect(parsed.allSatisfy { $0["line"]?.stringValue?.isEmpty == false }, "\(logs)")

            let stopped = try await home.run("stop", "--json")
            let stop = try stopped.json()
            #expect(stopped.status == 0 && stop["stopped"] == true, "\(stopped)")
            let notRunning = try await home.run("stop", "--json")
            #expect(notRunning.status == 3, "\(notRunning)")
            #expect(try notRunning.json()["error"]?["message"]?.stringValue?.contains("not running") == true, "\(notRunning)")

            let foreground = try await home.run("start", "--foreground", "--json")
            #expect(foreground.status == 64, "a usage error, not a daemon that ignores --json: \(foreground)")
        }
    }
}
