import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd extension install | uninstall | path | status`, run as the built binary.
@Suite struct ExtensionCommandTests {
    /// The checkout's copy, which a binary under .build finds by itself.
    static var checkoutCopy: String { RepoPaths.root + "/extension/pi-relayd.ts" }

    @Test func pathFindsTheCopyShippedBesideTheBinary() async throws {
        try await TestHome.with(gated: false) { home in
            let path = try await home.run("extension", "path")
            #expect(path.status == 0, "\(path)")
            #expect(path.stdout == Self.checkoutCopy + "\n")
            let missing = try await home.cli(extra: ["PI_RELAYD_EXTENSION": home.scratch + "/nowhere.ts"]).run(["extension", "path"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("PI_RELAYD_EXTENSION"), "\(missing.stderr)")
        }
    }

    @Test func installIntoTheAgentFolderThenStatusThenUninstall() async throws {
        try await TestHome.with(gated: false) { home in
            let agent = home.scratch + "/agent"
            let cli = home.cli(extra: ["PI_CODING_AGENT_DIR": agent])
            let before = try await cli.run(["extension", "status"])
            #expect(before.status == 1, "nothing installed: \(before)")
            #expect(before.stdout.contains("not installed at \(agent)/extensions/pi-relayd.ts"), "\(before.stdout)")

            let installed = try await cli.run(["extension", "install"])
            #expect(installed.status == 0, "\(installed)")
            #expect(installed.stdout.contains("at \(agent)/extensions/pi-relayd.ts"), "it says where: \(installed.stdout)")
            #expect(FileManager.default.contentsEqual(atPath: agent + "/extensions/pi-relayd.ts", andPath: Self.checkoutCopy))

            let status = try JSONValue.parse(bytes: Array(try await cli.run(["extension", "status", "--json"]).stdout.utf8))
            #expect(status["current"] == true, "\(status)")
            #expect(status["version"] == status["daemonVersion"])

            // An older copy left by an earlier pi-relayd: status says so and exits 1.
            try Data("export const EXTENSION_VERSION = \"0.0.9\";\n".utf8).write(to: URL(fileURLWithPath: agent + "/extensions/pi-relayd.ts"))
            let stale = try await cli.run(["extension", "status"])
            #expect(stale.status == 1)
            #expect(stale.stdout.contains("version 0.0.9"), "\(stale.stdout)")

            let removed = try await cli.run(["extension", "uninstall"])
            #expect(removed.status == 0, "\(removed)")
            #expect(!FileManager.default.fileExists(atPath: agent + "/extensions/pi-relayd.ts"))
        }
    }

    @Test func aProjectInstallAndAFileThatIsNotOursIsLeftAlone() async throws {
        try await TestHome.with(gated: false) { home in
            let project = home.scratch + "/proj"
            try FileManager.default.createDirectory(atPath: project + "/.pi/extensions", withIntermediateDirectories: true)
            let theirs = project + "/.pi/extensions/pi-relayd.ts"
            try Data("export default function () {}\n".utf8).write(to: URL(fileURLWithPath: theirs))
            let refused = try await home.run("extension", "install", "--project", project)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stderr.contains("not the pi-relayd extension"), "\(refused.stderr)")
            let kept = try await home.run("extension", "uninstall", "--project", project)
            #expect(kept.status == 1)
            #expect(FileManager.default.fileExists(atPath: theirs), "someone else's file is never removed")

            try FileManager.default.removeItem(atPath: theirs)
            let installed = try await home.run("extension", "install", "--project", project)
            #expect(installed.status == 0, "\(installed)")
            #expect(FileManager.default.contentsEqual(atPath: theirs, andPath: Self.checkoutCopy))
        }
    }
}
