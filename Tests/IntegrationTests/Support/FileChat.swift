import Foundation

/// The chat of examples/file-messenger.py, as its user sees it: lines appended to `in.txt` are
/// messages, `transcript.txt` is what the bot said.
struct FileChat {
    let folder: String

    init(home: TestHome, id: String = "filechat") {
        folder = home.path + "/state/plugins/" + id
    }

    /// Until the messenger has made its inbox.
    func ready() async throws {
        try await waitUntil("the messenger made its inbox", timeout: .seconds(20)) {
            FileManager.default.fileExists(atPath: folder + "/in.txt")
        }
    }

    func say(_ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/in.txt"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((text + "\n").utf8))
        try handle.close()
    }

    var transcript: String { (try? String(contentsOfFile: folder + "/transcript.txt", encoding: .utf8)) ?? "" }

    func waitFor(_ text: String, timeout: Duration = .seconds(60)) async throws {
        try await waitUntil("the transcript shows \(text)", timeout: timeout) { transcript.contains(text) }
    }
}
