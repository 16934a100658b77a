import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The control socket and everything the daemon writes under its home (state, outboxes, logs, the
/// directories holding them) are for the owner alone, even when the daemon runs under umask 000.
@Suite struct SecurityFileModeTests {
    /// A home made by hand under the usual umask (`mkdir -p ~/.pi-relayd`: 755) is made
    /// owner-only at start: it holds the control socket and the secrets.
    @Test func aHomeOpenToOthersIsMadePrivateAtStart() async throws {
        try await TestHome.with { home in
            #expect(chmod(home.path, 0o755) == 0)
            _ = try await home.startDaemon()
            let mode = try #require(SecurityFileMode(home.path))
            #expect(!mode.isOpenToOthers, "\(mode)")
        }
    }

    @Test func socketStateOutboxesAndLogsAreOwnerOnly() async throws {
        try await TestHome.with { home in
            let s = try SessionHome(home: home, config: SessionConfig())
            try home.installEcho()
            try home.installFake("fake-good", as: "stopped")
            let daemon = try await SecurityPermissiveDaemon(home: home)
            do {
                // A session (sessions.json), a delivery acked by echo, and deliveries waiting in
                // the outbox of a plugin that is stopped (SIGSTOP), so it never acks them.
                let id = try await s.new(name: "modes")
                try await s.prompt(id, "hello")
                let echo = try await home.run("plugin", "call", "echo", "test.note", "{}", "--deliver")
                #expect(echo.status == 0, "\(echo)")
                let stopped = try await waitFor("the plugin to stop is running") { try await Self.runningPID(home, "stopped") }
                kill(stopped, SIGSTOP)
                defer { kill(stopped, SIGCONT) }
                for n in 0..<3 {
                    let queued = try await home.run("plugin", "call", "stopped", "test.note", "{\"n\":\(n)}", "--deliver")
                    #expect(queued.status == 0, "\(queued)")
                }
                try await waitUntil("an outbox file exists") {
                    !((try? FileManager.default.contentsOfDirectory(atPath: home.path + "/state/outbox")) ?? []).isEmpty
                }

                let socket = try #require(SecurityFileMode(home.socketPath))
                #expect(socket.kind == S_IFSOCK)
                #expect(!socket.isOpenToOthers, "\(socket)")

                // Plugins write their own state folders' contents; the folders are the daemon's.
                let daemonsOwn = (SecurityFileMode.walk(home.path + "/state") + SecurityFileMode.walk(home.logsDir)).filter {
                    !$0.path.hasPrefix(home.path + "/state/plugins/") || $0.kind == S_IFDIR
                }
                let names = Set(daemonsOwn.map { $0.path.replacingOccurrences(of: home.path + "/", with: "") })
                for expected in ["state/sessions.json", "state/outbox", "logs/pi-relayd.log", "logs/echo.log", "state/plugins/echo"] {
                    #expect(names.contains(expected), "\(expected) is missing: \(names.sorted())")
                }
                #expect(names.contains { $0.hasPrefix("state/outbox/") }, "no outbox file: \(names.sorted())")
                for entry in daemonsOwn {
                    #expect(!entry.isOpenToOthers, "\(entry) is open to group or others")
                    #expect(entry.owner == geteuid(), "\(entry)")
                }
            } catch {
                _ = await daemon.stop()
                throw error
            }
            #expect(await daemon.stop() == .exited(0))
        }
    }

    /// The pid of plugin `name` once it is running.
    static func runningPID(_ home: TestHome, _ name: String) async throws -> Int32? {
        let result = try await home.run("plugins", "--json")
        let entry = try result.json().arrayValue?.first { $0["name"]?.stringValue == name }
        guard entry?["state"]?.stringValue == "running" else { return nil }
        return entry?["pid"]?.intValue.map { Int32($0) }
    }
}
