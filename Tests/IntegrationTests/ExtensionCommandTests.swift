import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd extension install | uninstall | path | status`, run as the built binary.
@Suite struct ExtensionCommandTests {
    /// The checkout's folder, which a binary under .build finds by itself.
    static var checkoutFolder: String { RepoPaths.root + "/extension/pi-relayd" }
    /// A single-file copy as a pi-relayd before the extension became a folder installed it
    /// (extensions/pi-relayd.ts); only its version line matters to the CLI.
    static let oldSingleFile = "/** pi-relayd's extension, before the split into modules. */\nexport const EXTENSION_VERSION = \"0.0.9\";\n"

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The installed folder holds exactly the checkout's files.
    static func expectSameFolder(_ installed: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shipped = try FileManager.default.contentsOfDirectory(atPath: checkoutFolder).sorted()
        #expect(try FileManager.default.contentsOfDirectory(atPath: installed).sorted() == shipped, sourceLocation: sourceLocation)
        #expect(shipped.contains("index.ts") && shipped.contains("version.ts"), sourceLocation: sourceLocation)
        for name in shipped {
            #expect(
                FileManager.default.contentsEqual(atPath: installed + "/" + name, andPath: checkoutFolder + "/" + name), "\(name)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func pathNamesTheEntryOfTheFolderShippedBesideTheBinary() async throws {
        try await TestHome.with(gated: false) { home in
            let path = try await home.run("extension", "path")
            #expect(path.status == 0, "\(path)")
            #expect(path.stdout == Self.checkoutFolder + "/index.ts\n")
            let missing = try await home.cli(extra: ["PI_RELAYD_EXTENSION": home.scratch + "/nowhere"]).run(["extension", "path"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("PI_RELAYD_EXTENSION"), "\(missing.stderr)")
            // PI_RELAYD_EXTENSION names the folder or its index.ts.
            for given in [Self.checkoutFolder, Self.checkoutFolder + "/index.ts"] {
                let explicit = try await home.cli(extra: ["PI_RELAYD_EXTENSION": given]).run(["extension", "path"])
                #expect(explicit.stdout == Self.checkoutFolder + "/index.ts\n", "\(given): \(explicit)")
            }
            // Or one file, for `pi -e` (and the daemon's children) only: there is no folder to install.
            let single = home.scratch + "/single.ts"
            try Self.write(Self.oldSingleFile, to: single)
            let file = home.cli(extra: ["PI_RELAYD_EXTENSION": single, "PI_CODING_AGENT_DIR": home.scratch + "/agent"])
            #expect(try await file.run(["extension", "path"]).stdout == single + "\n")
            let refused = try await file.run(["extension", "install"])
            #expect(refused.status == 1 && refused.stderr.contains("PI_RELAYD_EXTENSION"), "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: home.scratch + "/agent/extensions"), "nothing installed")
        }
    }

    @Test func installIntoTheAgentFolderThenStatusThenUninstall() async throws {
        try await TestHome.with(gated: false) { home in
            let agent = home.scratch + "/agent"
            let folder = agent + "/extensions/pi-relayd"
            let cli = home.cli(extra: ["PI_CODING_AGENT_DIR": agent])
            let before = try await cli.run(["extension", "status"])
            #expect(before.status == 1, "nothing installed: \(before)")
            #expect(before.stdout.contains("not installed at \(folder)"), "\(before.stdout)")

            let installed = try await cli.run(["extension", "install"])
            #expect(installed.status == 0, "\(installed)")
            #expect(installed.stdout.contains("at \(folder)\n"), "it says where: \(installed.stdout)")
            #expect(!installed.stdout.contains("old single-file"), "nothing old to remove: \(installed.stdout)")
            try Self.expectSameFolder(folder)
            #expect(try FileManager.default.contentsOfDirectory(atPath: agent + "/extensions") == ["pi-relayd"], "nothing staged is left")

            let status = try JSONValue.parse(bytes: Array(try await cli.run(["extension", "status", "--json"]).stdout.utf8))
            #expect(status["current"] == true, "\(status)")
            #expect(status["version"] == status["daemonVersion"])

            // A module changed since: status says the files differ; install again puts them right.
            try Data("// edited\n".utf8).write(to: URL(fileURLWithPath: folder + "/gates.ts"))
            let edited = try await cli.run(["extension", "status"])
            #expect(edited.status == 1 && edited.stdout.contains("its files differ"), "\(edited)")
            #expect(try await cli.run(["extension", "install"]).status == 0)
            try Self.expectSameFolder(folder)

            // An older copy left by an earlier pi-relayd: status says so and exits 1.
            try Self.write("export const EXTENSION_VERSION = \"0.0.9\";\n", to: folder + "/version.ts")
            let stale = try await cli.run(["extension", "status"])
            #expect(stale.status == 1)
            #expect(stale.stdout.contains("version 0.0.9"), "\(stale.stdout)")

            let removed = try await cli.run(["extension", "uninstall"])
            #expect(removed.status == 0, "\(removed)")
            #expect(!FileManager.default.fileExists(atPath: folder))
            let again = try await cli.run(["extension", "uninstall"])
            #expect(again.status == 0 && again.stdout.contains("not installed"), "\(again)")
        }
    }

    @Test func aProjectInstallAndAFolderThatIsNotOursIsLeftAlone() async throws {
        try await TestHome.with(gated: false) { home in
            let project = home.scratch + "/proj"
            let theirs = project + "/.pi/extensions/pi-relayd"
            try Self.write("export default function () {}\n", to: theirs + "/index.ts")
            let refused = try await home.run("extension", "install", "--project", project)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stderr.contains("not the pi-relayd extension"), "\(refused.stderr)")
            let kept = try await home.run("extension", "uninstall", "--project", project)
            #expect(kept.status == 1)
            #expect(FileManager.default.fileExists(atPath: theirs + "/index.ts"), "someone else's folder is never removed")

            try FileManager.default.removeItem(atPath: theirs)
            // A pi-relayd.ts that is not ours is no old copy: it stays.
            let unrelated = project + "/.pi/extensions/pi-relayd.ts"
            try Self.write("export default function () {}\n", to: unrelated)
            let installed = try await home.run("extension", "install", "--project", project)
            #expect(installed.status == 0, "\(installed)")
            try Self.expectSameFolder(theirs)
            #expect(FileManager.default.fileExists(atPath: unrelated), "someone else's file is never removed")
            let status = try await home.run("extension", "status", "--project", project)
            #expect(status.status == 0, "\(status)")
        }
    }

    /// Upgrading from a pi-relayd whose extension was one file: pi discovers both a file and a
    /// folder in an extensions folder (spec §1.1) and de-duplicates by path only, so the old
    /// copy would load beside the new one. install removes it and says so; status and doctor
    /// name it until then; uninstall removes it too.
    @Test(arguments: [false, true])
    func installReplacesAnOlderSingleFileCopy(perProject: Bool) async throws {
        try await TestHome.with(gated: false) { home in
            let agent = home.scratch + "/agent"
            let project = home.scratch + "/proj"
            let extensions = perProject ? project + "/.pi/extensions" : agent + "/extensions"
            let location = perProject ? ["--project", project] : []
            let cli = home.cli(extra: ["PI_CODING_AGENT_DIR": agent])
            try Self.write(Self.oldSingleFile, to: extensions + "/pi-relayd.ts")

            let before = try await cli.run(["extension", "status"] + location)
            #expect(before.status == 1, "\(before)")
            #expect(before.stdout.contains("single-file copy is installed at \(extensions)/pi-relayd.ts, version 0.0.9"), "\(before.stdout)")
            #expect(before.stdout.contains("pi-relayd extension install"), "\(before.stdout)")

            let installed = try await cli.run(["extension", "install"] + location)
            #expect(installed.status == 0, "\(installed)")
            #expect(installed.stdout.contains("removed the old single-file copy \(extensions)/pi-relayd.ts"), "\(installed.stdout)")
            #expect(!FileManager.default.fileExists(atPath: extensions + "/pi-relayd.ts"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: extensions) == ["pi-relayd"], "only the folder is left for pi to discover")
            try Self.expectSameFolder(extensions + "/pi-relayd")
            #expect(try await cli.run(["extension", "status"] + location).status == 0)

            // Both there (an old pi-relayd's install after this one): status says the old one loads too.
            try Self.write(Self.oldSingleFile, to: extensions + "/pi-relayd.ts")
            let both = try await cli.run(["extension", "status", "--json"] + location)
            #expect(both.status == 1, "\(both)")
            let state = try JSONValue.parse(bytes: Array(both.stdout.utf8))
            #expect(state["oldCopy"]?.stringValue == extensions + "/pi-relayd.ts" && state["current"] == false, "\(state)")

            let removed = try await cli.run(["extension", "uninstall"] + location)
            #expect(removed.status == 0, "\(removed)")
            #expect(removed.stdout.contains("removed \(extensions)/pi-relayd\n"), "\(removed.stdout)")
            #expect(removed.stdout.contains("removed \(extensions)/pi-relayd.ts"), "\(removed.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: extensions).isEmpty)
        }
    }
}
