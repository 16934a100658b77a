import Foundation
import Testing

/// Logs rotate by size and never hold more than the configuration allows: each file at most
/// `logs.maxBytes`, at most `logs.keep` rotated files beside the current one (docs/CONFIG.md),
/// whatever the lines look like: 60 KB stderr lines, long lines of multi-byte characters, one
/// enormous grapheme cluster.
@Suite struct BoundLogTests {
    /// A plugin that never says hello: it writes long stderr lines and exits, so the daemon logs
    /// its stderr, its exit (with the last lines) and a restart, three times before giving up.
    static let floodingPlugin = """
        #!/usr/bin/env python3
        import sys
        out = sys.stderr.buffer
        for i in range(12):
            out.write(b"%d " % i + b"x" * 60000 + b"\\n")
        out.write("é".encode() * 20000 + b"\\n")
        out.write(b"e" + "\\u0301".encode() * 25000 + b"\\n")
        out.write("🙂".encode() * 9000 + b"\\n")
        out.flush()
        sys.exit(3)

        """

    /// Every log in logs/: the current file and its rotated ones by base name.
    static func logSets(_ home: TestHome) -> [String: [(name: String, bytes: Int)]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: home.logsDir)) ?? []
        var sets: [String: [(String, Int)]] = [:]
        for name in names {
            let attributes = try? FileManager.default.attributesOfItem(atPath: home.logsDir + "/" + name)
            let bytes = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            let base = name.range(of: #"\.log(\.\d+)?$"#, options: .regularExpression).map { String(name[..<$0.lowerBound]) } ?? name
            sets[base, default: []].append((name, bytes))
        }
        return sets
    }

    static func checkBounds(_ home: TestHome, maxBytes: Int, keep: Int) {
        let sets = logSets(home)
        #expect(sets["pi-relayd"] != nil && sets["flood"] != nil, "\(sets.keys.sorted())")
        for (base, files) in sets {
            let allowed = Set([base + ".log"] + (0..<keep).map { "\(base).log.\($0 + 1)" })
            for file in files {
                #expect(allowed.contains(file.name), "\(file.name) is beyond logs.keep = \(keep)")
                #expect(file.bytes <= maxBytes, "\(file.name) has \(file.bytes) bytes, logs.maxBytes is \(maxBytes)")
            }
            let total = files.map(\.bytes).reduce(0, +)
            #expect(total <= (keep + 1) * maxBytes, "\(base) logs hold \(total) bytes in \(files.map(\.name))")
        }
    }

    @Test(arguments: [2, 0])
    func longLinesRotateWithinMaxBytesAndKeep(keep: Int) async throws {
        let maxBytes = 4096
        var config = TestConfig(initialBackoffMs: 50, jitter: 0, crashLoopCount: 3)
        config.logMaxBytes = maxBytes
        config.logKeep = keep
        try await TestHome.with(config: config.yaml) { home in
            try home.writeFile("plugins/flood", Self.floodingPlugin, mode: 0o755)
            let daemon = try await home.startDaemon()
            try await daemon.waitForPlugin("flood", "fails after three floods", timeout: .seconds(60)) { $0.state == "failed" }
            Self.checkBounds(home, maxBytes: maxBytes, keep: keep)
            // What is kept is the end of what was written, cut on character boundaries.
            let current = home.pluginLog("flood")
            #expect(current.contains("🙂"), "the newest line is in the current file")
            #expect(!current.contains("\u{FFFD}"), "a cut split a character")
        }
    }
}
