import FoundationEssentials
import MessengerKit
import PiRelaySDK
import Testing

@Suite struct InboxRecordTests {
    struct Note: InboxMessage {
        var id: String
        var lane: String { "one" }
        static var remembered: Int { 3 }
    }

    struct Renamed: InboxMessage {
        var id: String
        var lane: String { "one" }
        static var remembered: Int { 3 }
        static var seenKey: String { "messages" }
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aMessageIsTakenOnceAndPendingUntilDone() {
        var record = InboxRecord<Note>()
        let taken = ["a", "a", "b"].map { record.take(Note(id: $0)) }
        #expect(taken == [true, false, true])
        #expect(record.pending.map(\.id) == ["a", "b"])
        record.done("a")
        #expect(record.pending.map(\.id) == ["b"])
        let again = record.take(Note(id: "a"))
        #expect(!again, "done is not forgotten: a redelivery is still a duplicate")
    }

    @Test func onlyTheLastIDsAreRemembered() {
        var record = InboxRecord<Note>()
        let taken = ["a", "b", "c", "d"].map { record.take(Note(id: $0)) }
        #expect(taken == [true, true, true, true])
        #expect(record.seen == ["b", "c", "d"])
        let forgotten = record.take(Note(id: "a"))
        #expect(forgotten, "forgotten past the window")
        let seen = ["e1", "e2", "e3", "e4", "e4"].map { record.see(event: $0) }
        #expect(seen == [true, true, true, true, false])
        #expect(record.events == ["e2", "e3", "e4"])
    }

    @Test func theMarksAreWrittenOnlyByTheTransportsThatKeepThem() throws {
        #expect(try Self.json(InboxRecord<Note>()) == #"{"pending":[],"seen":[]}"#)
        var polled = InboxRecord<Note>(cursor: 0)
        polled.cursor = 7
        #expect(try Self.json(polled) == #"{"lastUpdate":7,"pending":[],"seen":[]}"#)
        #expect(try Self.json(InboxRecord<Renamed>(events: [])) == #"{"events":[],"messages":[],"pending":[]}"#)
    }

    @Test func aJournalReadsBackAsItWasWritten() throws {
        var record = InboxRecord<Renamed>(events: [])
        _ = record.see(event: "E1")
        _ = record.take(Renamed(id: "m1"))
        _ = record.take(Renamed(id: "m2"))
        record.done("m1")
        record.answer("m2", ChatMessageResult(status: .command, reply: Reply(text: "done")))
        let read = try JSONDecoder().decode(InboxRecord<Renamed>.self, from: Data(try Self.json(record).utf8))
        #expect(read == record)
        #expect(read.answer(of: "m2")?.reply?.text == "done")
        #expect(read.seen == ["m1", "m2"] && read.events == ["E1"] && read.pending == [Renamed(id: "m2")])
    }
}
