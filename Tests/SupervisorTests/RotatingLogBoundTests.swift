import Foundation
import Testing

@testable import Supervisor

/// Whatever is logged, each file stays within `maxBytes` and only `keep` rotated files are kept
/// (logs.keep: 0 keeps none); pieces of a long line are cut on character boundaries.
@Suite struct RotatingLogBoundTests {
    static let lines = [
        String(repeating: "x", count: 60_000),
        String(repeating: "é", count: 20_000),
        "e" + String(repeating: "\u{0301}", count: 25_000),
        String(repeating: "🙂", count: 9_000),
        "short\nlines\n\nin one entry",
    ]

    @Test(arguments: [0, 1, 3])
    func filesStayWithinMaxBytesAndKeep(keep: Int) throws {
        let folder = try ScratchFolder()
        let log = RotatingLog(path: folder.path + "/x.log", maxBytes: 4096, keep: keep)
        for line in Self.lines { log.append(line) }

        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["x.log"] + (0..<keep).map { "x.log.\($0 + 1)" })
        for name in names {
            let data = try #require(FileManager.default.contents(atPath: folder.path + "/" + name))
            #expect(data.count <= 4096, "\(name) has \(data.count) bytes")
            #expect(String(validating: Array(data), as: UTF8.self) != nil, "\(name) has a character cut in two")
        }
        #expect(folder.read("x.log").hasSuffix(" in one entry\n"))
        #expect(log.failure == nil)
    }

    @Test func piecesNeverSplitACharacter() {
        let bytes = Array(String(repeating: "中🙂é", count: 500).utf8)
        for size in [4, 5, 7, 100, 4000] {
            let pieces = RotatingLog.pieces(bytes, maxBytes: size)
            #expect(pieces.allSatisfy { $0.count <= size && String(validating: Array($0), as: UTF8.self) != nil })
            #expect(Array(pieces.joined()) == bytes)
        }
        #expect(RotatingLog.pieces([], maxBytes: 10).map(Array.init) == [[]])
    }
}
