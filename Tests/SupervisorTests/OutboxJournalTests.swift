import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// The on-disk outbox: what a restarted daemon finds is exactly what was never acknowledged.
@Suite struct OutboxJournalTests {
    static func entry(_ n: Int, _ params: JSONValue? = nil) -> Outbox.Entry {
        Outbox.Entry(id: "id-\(n)", method: "chat.post", params: params ?? ["n": JSONValue(n)])
    }

    @Test func unacknowledgedEntriesSurviveAReloadInOrder() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        var outbox = Outbox(path: path, limit: 100)
        for n in 0..<5 { try outbox.add(Self.entry(n)) }
        let acked = [outbox.ack("id-1"), outbox.ack("id-3")]
        #expect(acked == [true, true])

        let reloaded = Outbox(path: path, limit: 100)
        #expect(reloaded.entries == [Self.entry(0), Self.entry(2), Self.entry(4)])
        #expect(reloaded.lastError == nil)
    }

    @Test func paramsRoundTripExactly() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        let params: JSONValue = [
            "text": "line\nbreak, raw \u{2028} separator, \"quotes\", emoji 🎉",
            "nested": ["a": [1, 2.5, true, nil]], "empty": [:],
        ]
        var outbox = Outbox(path: path, limit: 10)
        try outbox.add(Self.entry(1, params))
        #expect(Outbox(path: path, limit: 10).entries == [Self.entry(1, params)])
        // One record per line: the LF inside the text is escaped.
        #expect(folder.read("p.jsonl").split(separator: "\n").count == 1)
    }

    @Test func acknowledgingTwiceOrAnUnknownIdIsHarmless() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        var outbox = Outbox(path: path, limit: 10)
        try outbox.add(Self.entry(1))
        let acked = [outbox.ack("id-1"), outbox.ack("id-1"), outbox.ack("never-sent")]
        #expect(acked == [true, false, false])
        #expect(outbox.entries.isEmpty)
        #expect(Outbox(path: path, limit: 10).entries.isEmpty)
    }

    @Test func theLimitRefusesMoreUntilSomethingIsAcknowledged() throws {
        let folder = try ScratchFolder()
        var outbox = Outbox(path: folder.path + "/p.jsonl", limit: 2)
        try outbox.add(Self.entry(1))
        try outbox.add(Self.entry(2))
        do {
            try outbox.add(Self.entry(3))
            Issue.record("a third entry was accepted over the limit")
        } catch {
            #expect("\(error)" == "outbox full (2 unacknowledged messages)")
        }
        #expect(outbox.entries.map(\.id) == ["id-1", "id-2"])
        outbox.ack("id-1")
        try outbox.add(Self.entry(3))
        #expect(Outbox(path: folder.path + "/p.jsonl", limit: 2).entries.map(\.id) == ["id-2", "id-3"])
    }

    @Test func theJournalIsCompactedAsAcknowledgementsPileUp() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        var outbox = Outbox(path: path, limit: 10)
        try outbox.add(Self.entry(-1))
        for n in 0..<1000 {
            try outbox.add(Self.entry(n))
            outbox.ack("id-\(n)")
        }
        let lines = folder.read("p.jsonl").split(separator: "\n")
        #expect(lines.count <= 203, "the journal kept \(lines.count) lines for one pending entry")
        #expect(Outbox(path: path, limit: 10).entries == [Self.entry(-1)])
        // Appends after a compaction land in the rewritten file.
        try outbox.add(Self.entry(2000))
        #expect(Outbox(path: path, limit: 10).entries == [Self.entry(-1), Self.entry(2000)])
    }

    /// A daemon killed in the middle of an append leaves half a record at the end of the file.
    @Test func aTornLastRecordIsDroppedAndLaterRecordsAreKept() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        var first = Outbox(path: path, limit: 10)
        try first.add(Self.entry(1))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"op":"add","id":"id-2","meth"#.utf8))
        try handle.close()

        var reloaded = Outbox(path: path, limit: 10)
        #expect(reloaded.entries == [Self.entry(1)])
        try reloaded.add(Self.entry(3))
        #expect(Outbox(path: path, limit: 10).entries == [Self.entry(1), Self.entry(3)])
    }

    @Test func aMissingJournalIsAnEmptyOutbox() throws {
        let folder = try ScratchFolder()
        let outbox = Outbox(path: folder.path + "/none.jsonl", limit: 10)
        #expect(outbox.entries.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/none.jsonl"))
    }
}
