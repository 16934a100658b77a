import Foundation
import Testing

@testable import Supervisor

#if canImport(Glibc)
import Glibc
#endif

/// Which files become plugins, and which are refused and why.
@Suite struct PluginDiscoveryTests {
    @Test func executablesAreFoundAndOtherFilesIgnored() throws {
        let folder = try ScratchFolder()
        try folder.write("good")
        try folder.write("private", mode: 0o700)
        try folder.write("data.txt", "just data\n", mode: 0o644)
        try folder.write(".hidden")
        try FileManager.default.createDirectory(atPath: folder.path + "/subdir", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/good")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/dangling", withDestinationPath: folder.path + "/gone")

        let scan = PluginDiscovery(directories: [folder.path], disabled: []).scan()
        #expect(scan.found.map(\.name) == ["good", "link", "private"])
        #expect(scan.found.first { $0.name == "link" }?.path == folder.path + "/link")
        #expect(scan.refused.isEmpty)
        #expect(scan.skipped.isEmpty)
    }

    @Test(arguments: [0o775, 0o757, 0o777, 0o765, 0o756] as [mode_t])
    func groupOrWorldWritableExecutablesAreRefused(_ mode: mode_t) throws {
        let folder = try ScratchFolder()
        let path = try folder.write("risky", mode: mode)
        let scan = PluginDiscovery(directories: [folder.path], disabled: []).scan()
        #expect(scan.found.isEmpty)
        let refused = try #require(scan.refused.first)
        #expect(refused.name == "risky")
        #expect(refused.path == path)
        #expect(refused.reason == "writable by group or others (mode \(String(mode, radix: 8))); run: chmod go-w \(path)")
    }

    @Test func filesOwnedBySomeoneElseAreRefused() throws {
        let folder = try ScratchFolder()
        try folder.write("theirs")
        let me = getuid()
        let scan = PluginDiscovery(directories: [folder.path], disabled: [], uid: me + 1).scan()
        #expect(scan.found.isEmpty)
        #expect(
            scan.refused.map(\.reason) == [
                "owned by uid \(me), not by this user (uid \(me + 1)); another user could change what runs here"
            ])
    }

    @Test func disabledPluginsAreSkipped() throws {
        let folder = try ScratchFolder()
        try folder.write("on")
        try folder.write("off")
        let scan = PluginDiscovery(directories: [folder.path], disabled: ["off", "not-installed"]).scan()
        #expect(scan.found.map(\.name) == ["on"])
        #expect(scan.skipped == ["off"])
    }

    @Test func theHomeFolderWinsANameClash() throws {
        let home = try ScratchFolder(), bundled = try ScratchFolder()
        try home.write("formatter")
        try bundled.write("formatter")
        try bundled.write("discord")
        // A non-executable file in the home folder does not hide the bundled plugin.
        try home.write("discord", "notes\n", mode: 0o644)
        let scan = PluginDiscovery(directories: [home.path, bundled.path], disabled: []).scan()
        #expect(scan.found.map(\.path) == [bundled.path + "/discord", home.path + "/formatter"])
    }

    @Test func aRefusedHomePluginIsNotReplacedByTheBundledOne() throws {
        let home = try ScratchFolder(), bundled = try ScratchFolder()
        try home.write("formatter", mode: 0o777)
        try bundled.write("formatter")
        let scan = PluginDiscovery(directories: [home.path, bundled.path], disabled: []).scan()
        #expect(scan.found.isEmpty)
        #expect(scan.refused.map(\.path) == [home.path + "/formatter"])
    }

    @Test func theFingerprintChangesWhenTheExecutableIsReplaced() throws {
        let folder = try ScratchFolder()
        try folder.write("p", "#!/bin/sh\nexit 0\n")
        let discovery = PluginDiscovery(directories: [folder.path], disabled: [])
        let before = try #require(discovery.scan().found.first?.fingerprint)
        #expect(discovery.scan().found.first?.fingerprint == before, "stable while unchanged")
        // A new file under the same name (as an install would do): new inode.
        try FileManager.default.removeItem(atPath: folder.path + "/p")
        try folder.write("p", "#!/bin/sh\nexit 1\n")
        #expect(discovery.scan().found.first?.fingerprint != before)
    }

    @Test func theBundledFoldersComeFromTheEnvironmentOrTheExecutablesFolder() {
        #expect(PluginDiscovery.bundledDirectories(environment: ["PI_RELAYD_BUNDLED_PLUGINS": ""]).isEmpty)
        #expect(PluginDiscovery.bundledDirectories(environment: ["PI_RELAYD_BUNDLED_PLUGINS": "/opt/p"]) == ["/opt/p"])
        #expect(
            PluginDiscovery.bundledDirectories(environment: [:], executable: "/home/u/.local/bin/pi-relayd")
                == ["/home/u/.local/bin/pi-relayd-plugins", "/home/u/.local/lib/pi-relayd/plugins"])
        #expect(PluginDiscovery.bundledDirectories(environment: [:]).first?.hasSuffix("/pi-relayd-plugins") == true)
    }
}
