import Foundation

/// Where the built executables are: the directory holding this test bundle (`.build/debug` when
/// run by `swift test`), unless `PI_RELAYD_BIN_DIR` names another one.
enum BuildProducts {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["PI_RELAYD_BIN_DIR"], !dir.isEmpty { return dir }
        // /proc/self/exe rather than argv[0]: argv[0] may be relative or a symlink.
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // On platforms that wrap tests in a bundle, the executable sits a few levels down.
        for _ in 0..<4 where !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("pi-relayd").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }()

    static func executable(_ name: String) -> String { directory + "/" + name }

    static var relayd: String { executable("pi-relayd") }
}
