import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Which files in plugins/ become plugins.
@Suite struct DiscoveryTests {
    /// A script that leaves a mark if it is ever run: refused files must never run.
    static func markingScript(_ home: TestHome, _ name: String) -> String {
        "#!/bin/sh\ntouch \(home.scratch)/ran-\(name)\nexit 0\n"
    }

    @Test func startsExecutablesIgnoresOtherFilesAndRefusesWritableOnes() async throws {
        try await TestHome.with(config: TestConfig(disabled: ["off"]).yaml) { home in
            try home.installFake("fake-good", as: "good")
            try home.installFake("fake-good", as: "off")
            try home.writeFile("plugins/notes.txt", "not a plugin\n", mode: 0o644)
            try home.writeFile("plugins/group-writable", Self.markingScript(home, "group-writable"), mode: 0o775)
            try home.writeFile("plugins/world-writable", Self.markingScript(home, "world-writable"), mode: 0o757)
            let daemon = try await home.startDaemon()

            let good = try await daemon.waitForRunning("good")
            let plugins = try await daemon.plugins()
            #expect(Set(plugins.keys) == ["good", "group-writable", "world-writable"], "\(plugins)")
            #expect(plugins["group-writable"]?.state == "refused")
            #expect(
                plugins["group-writable"]?.reason.contains("writable by group or others (mode 775)") == true,
                "\(String(describing: plugins["group-writable"]))")
            #expect(plugins["world-writable"]?.state == "refused")
            #expect(
                plugins["world-writable"]?.reason.contains("writable by group or others (mode 757)") == true,
                "\(String(describing: plugins["world-writable"]))")
            #expect(good.restarts == 0)

            let log = home.daemonLog
            #expect(log.contains("refusing plugin group-writable at \(home.pluginsDir)/group-writable: writable by group or others"), "\(log)")
            #expect(log.contains("refusing plugin world-writable at \(home.pluginsDir)/world-writable: writable by group or others"))
            #expect(log.contains("plugin off is disabled in config"))
            #expect(!log.contains("spawned \(home.pluginsDir)/off"))
            #expect(!log.contains("notes.txt"))

            let table = try await home.run("plugins")
            #expect(table.stdout.contains("group-writable\trefused"), "\(table)")

            // Only `good` ever ran.
            #expect(home.fakeEvents("welcome").compactMap { $0["plugin"]?.stringValue } == ["good"])
            for name in ["group-writable", "world-writable"] {
                #expect(!FileManager.default.fileExists(atPath: "\(home.scratch)/ran-\(name)"), "\(name) was run")
            }
        }
    }

    enum ReloadTrigger: String, CaseIterable, Sendable { case command, sighup }

    @Test(arguments: ReloadTrigger.allCases)
    func reloadPicksUpAddedAndRemovedExecutables(_ trigger: ReloadTrigger) async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-good", as: "first")
            let daemon = try await home.startDaemon()
            let first = try await daemon.waitForRunning("first")

            try home.installFake("fake-good", as: "second")
            try home.removePlugin("first")
            switch trigger {
            case .command:
                let reload = try await home.run("plugins", "reload")
                #expect(reload.status == 0, "\(reload)")
                #expect(reload.stdout.contains("added second"), "\(reload)")
                #expect(reload.stdout.contains("removed first"), "\(reload)")
            case .sighup:
                daemon.signal(SIGHUP)
            }

            try await daemon.waitForRunning("second")
            try await waitUntil("first is no longer listed") { try await daemon.plugins()["first"] == nil }
            try await waitUntil("first's process is gone") { !ProcessTable.isRunning(first.pid!) }
            // Removed plugins are stopped politely, not killed.
            #expect(home.fakeEvents("shutdown", plugin: "first").count == 1)
            #expect(home.daemonLog.contains("plugin first was removed; stopping it"))
            if trigger == .sighup { #expect(home.daemonLog.contains("SIGHUP: reloading plugins")) }
            // The daemon itself carried on.
            #expect(daemon.process.poll() == nil)
        }
    }
}
