import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Plugin stderr goes to logs/<plugin>.log with timestamps and size-based rotation; the daemon
/// log tells a plugin's life story.
@Suite struct PluginLogTests {
    static var stamped: Regex<Substring> { #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z /# }

    @Test func stderrIsFiledWithTimestampsAndShownByLogs() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installEcho()
            let daemon = try await home.startDaemon()
            try await daemon.waitForRunning("echo")
            try await waitUntil("echo's welcome line reaches its log") { home.pluginLog("echo").contains("welcomed as 'echo'") }

            let lines = home.pluginLog("echo").split(separator: "\n")
            #expect(lines.count >= 2)
            for line in lines {
                #expect(line.prefixMatch(of: Self.stamped) != nil, "not timestamped: \(line)")
            }
            // The example's deliberate print lands in stderr, so in this log.
            #expect(lines.contains { $0.hasSuffix("echo: stdout now goes to stderr; the protocol has its own fd") })

            let logs = try await home.run("logs", "echo")
            #expect(logs.status == 0, "\(logs)")
            #expect(logs.stdout.contains("welcomed as 'echo'"), "\(logs)")
            let last = try await home.run("logs", "echo", "--lines", "1")
            #expect(last.stdout.split(separator: "\n").count == 1, "\(last)")

            let daemonLog = try await home.run("logs")
            #expect(daemonLog.stdout.contains("plugin echo: hello: echo 1.0.0, protocol 1"), "\(daemonLog)")

            let missing = try await home.run("logs", "nosuch")
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("no log"), "\(missing)")
            #expect(missing.stderr.contains("echo"), "lists the logs there are: \(missing)")
        }
    }

    @Test func pluginLogsRotateBySizeAndKeepTheNewestLines() async throws {
        let maxBytes = 65_536, keep = 3
        try await TestHome.with(config: TestConfig(logMaxBytes: maxBytes, logKeep: keep).yaml) { home in
            try home.installFake("fake-big-stderr")
            let daemon = try await home.startDaemon(environment: ["FAKE_STDERR_BYTES": "400000"])
            try await daemon.waitForRunning("fake-big-stderr")
            try await waitUntil("the flood is logged", timeout: .seconds(30)) {
                home.pluginLog("fake-big-stderr").contains("stderr done:")
            }

            let base = "logs/fake-big-stderr.log"
            let files = [base] + (1...keep).map { "\(base).\($0)" }
            var total = 0
            for file in files {
                let size = home.read(file).utf8.count
                #expect(size > 0, "\(file) is missing or empty")
                #expect(size <= maxBytes, "\(file) has \(size) bytes, over \(maxBytes)")
                total += size
            }
            #expect(!FileManager.default.fileExists(atPath: "\(home.path)/\(base).\(keep + 1)"), "more than \(keep) rotated files")
            // logs.keep counts rotated files: the current file plus `keep` older ones.
            #expect(total <= (keep + 1) * maxBytes)

            // Oldest to newest, the kept lines are consecutive and end with the last one written.
            let text = files.reversed().map { home.read($0) }.joined()
            let numbers = text.split(separator: "\n").compactMap { line -> Int? in
                #expect(line.prefixMatch(of: Self.stamped) != nil, "not timestamped: \(line.prefix(80))")
                guard let range = line.range(of: "stderr line ") else { return nil }
                return Int(line[range.upperBound...].prefix(8))
            }
            let done = try #require(text.firstMatch(of: #/stderr done: \d+ bytes in (\d+) lines/#))
            let count = try #require(Int(done.1))
            #expect(numbers.last == count - 1)
            #expect(numbers == Array((numbers.first ?? 0)...(count - 1)), "lines missing between rotations")
            #expect(numbers.count < count, "nothing was rotated away")

            let call = try await home.run("plugin", "call", "fake-big-stderr", "echo", "{}")
            #expect(call.status == 0, "the plugin kept running: \(call)")
        }
    }

    @Test func daemonLogRecordsSpawnHelloExitAndBackoff() async throws {
        try await TestHome.with(config: TestConfig(initialBackoffMs: 300, jitter: 0).yaml) { home in
            try home.installEcho()
            let daemon = try await home.startDaemon()
            let first = try #require(try await daemon.waitForRunning("echo").pid)
            kill(first, SIGKILL)
            let second = try await daemon.waitForPlugin("echo", "is restarted") { $0.state == "running" && $0.pid != nil && $0.pid != first }

            let log = home.daemonLog
            let expected = [
                "plugin echo: spawned \(home.pluginsDir)/echo pid \(first)",
                "plugin echo: hello: echo 1.0.0, protocol 1, roles [\"observer\"]",
                "plugin echo (pid \(first)) killed by signal 9 (SIGKILL)",
                "plugin echo: restarting at once",
                "plugin echo: spawned \(home.pluginsDir)/echo pid \(second.pid ?? 0)",
            ]
            var searchFrom = log.startIndex
            for phrase in expected {
                let found = log.range(of: phrase, range: searchFrom..<log.endIndex)
                #expect(found != nil, "missing, or out of order: \(phrase)\n\(log)")
                if let found { searchFrom = found.upperBound }
            }
            for line in log.split(separator: "\n") {
                #expect(line.prefixMatch(of: Self.stamped) != nil, "not timestamped: \(line)")
            }
        }
    }
}
