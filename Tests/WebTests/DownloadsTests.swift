import FoundationEssentials
import PiRelaySDK
import Testing

@testable import WebPlugin

/// Files posted to a page are the web plugin's to remove once it hands them out no more (the
/// receiver removes the spool files it was handed, docs/PROTOCOL.md §8): the oldest past the
/// 200 kept are deleted, and the links survive a restart of the plugin, so no copy is left in the
/// spool that nothing can reach.
@Suite struct DownloadsTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("downloads-" + UUID().uuidString).path

    @Test func theOldestFilesAreRemovedAndTheLinksOutliveARestart() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let spool = root + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let store = StateStore(directory: root + "/state")
        let downloads = Downloads(spoolDir: spool, store: store)
        var links: [String] = []
        for n in 0...Downloads.keep {
            let path = spool + "/answer-\(n).md"
            #expect(FileManager.default.createFile(atPath: path, contents: Data("answer \(n)".utf8)))
            let offered = await downloads.offer(PostedFile(path: path, filename: "answer-\(n).md"))
            links.append(try #require(offered["url"]?.stringValue?.split(separator: "/").last.map(String.init)))
        }
        #expect(!FileManager.default.fileExists(atPath: spool + "/answer-0.md"), "the oldest is gone from the spool")
        #expect(await downloads.file(links[0]) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).count == Downloads.keep)

        // The plugin restarts: the links it gave pages still serve their files.
        try FileManager.default.removeItem(atPath: spool + "/answer-5.md")
        let again = Downloads(spoolDir: spool, store: store)
        #expect(await again.file(links[Downloads.keep])?.name == "answer-\(Downloads.keep).md")
        #expect(await again.file(links[1])?.path == spool + "/answer-1.md")
        #expect(await again.file(links[5]) == nil, "a file gone meanwhile is offered no more")
    }
}
