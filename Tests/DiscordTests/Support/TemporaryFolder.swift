import Foundation

/// A fresh folder under /tmp for one test; removed when the test drops it.
final class TemporaryFolder: Sendable {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/discord-test-XXXXXX").utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        // DISCORD_TEST_KEEP=1 keeps the folders (logs, transcripts, state) for a look after a failure.
        if ProcessInfo.processInfo.environment["DISCORD_TEST_KEEP"] == "1" { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}
