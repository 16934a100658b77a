import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// state/sessions.json and bindings.json: saved atomically, read back whole, migrated forward;
/// a newer file is refused and left alone; a damaged file or record is kept aside and reported,
/// never dropped without a word and never a crash.
@Suite struct StateFileTests {
    static func record(_ id: String, created: TimeInterval, pid: Int32? = nil) -> SessionRecord {
        // Whole seconds: the file keeps ISO 8601 times without fractions.
        SessionRecord(
            id: id, name: "name-\(id)", cwd: "/work/\(id)", sessionFile: "/agent/sessions/\(id).jsonl",
            model: "anthropic/claude-opus-4-6", createdAt: Date(timeIntervalSince1970: created),
            lastActivity: Date(timeIntervalSince1970: created + 60), pid: pid)
    }

    @Test func recordsComeBackAsSaved() throws {
        let folder = try ScratchFolder()
        let store = StateFile.sessions(path: folder.path + "/sessions.json")
        let log = SessionLogCapture()
        #expect(try store.load(logger: log.logger).records.isEmpty, "no file yet: no sessions, no fuss")
        #expect(log.text.isEmpty)

        let records = [Self.record("bbbb", created: 2_000_000_000, pid: 4242), Self.record("aaaa", created: 1_000_000_000)]
        try store.save(records)
        let loaded = try store.load(logger: log.logger).records
        #expect(loaded == records.reversed(), "oldest first")
        #expect(log.text.isEmpty)
        let file = folder.read("sessions.json")
        #expect(file.contains("\"version\" : 1"), "\(file)")
        #expect(file.contains("\"createdAt\" : \"2001-09-09T01:46:40Z\""), "\(file)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["sessions.json"], "no temporary file left")
    }

    /// The saver keeps each record's JSON and encodes again only what changed: every save must
    /// still hold the newest of every record, and drop the records no longer handed in.
    @Test func theSaverWritesTheNewestRecordsEachTime() async throws {
        let folder = try ScratchFolder()
        let store = StateFile.sessions(path: folder.path + "/sessions.json")
        let saver = SessionSaver(store: store)
        let log = SessionLogCapture()
        var records = [Self.record("aaaa", created: 1_000_000_000), Self.record("bbbb", created: 2_000_000_000)]
        #expect(await saver.save(records) == nil)
        #expect(try store.load(logger: log.logger).records == records)

        records[1].activeRun = "bbbb-1"
        records[1].runs = 1
        #expect(await saver.save(records) == nil)
        #expect(try store.load(logger: log.logger).records == records, "the changed record is saved as it is now")

        records.removeFirst()
        records.append(Self.record("cccc", created: 3_000_000_000, pid: 77))
        #expect(await saver.save(records) == nil)
        #expect(try store.load(logger: log.logger).records == records, "a removed record is gone, a new one is there")
        #expect(try JSONValue.parse(bytes: Array(folder.read("sessions.json").utf8))["version"]?.intValue == 1)
        #expect(log.text.isEmpty)
    }

    /// The dialogs open at the save come back whole, so a daemon killed with -9 can close them
    /// in the chats after its restart; a file from before they were saved still loads, with none.
    @Test func openQuestionsComeBackAsSavedAndOlderFilesHaveNone() throws {
        let folder = try ScratchFolder()
        let store = StateFile.sessions(path: folder.path + "/sessions.json")
        var record = Self.record("eeee", created: 1_000_000_000, pid: 77)
        record.activeRun = "run-3"
        record.openQuestions = [
            PendingQuestion(
                id: "q-1", sessionID: "eeee", method: "select", title: "Pick one",
                message: "for the build", options: ["red", "green"], placeholder: nil,
                prefill: nil, askedAt: Date(timeIntervalSince1970: 1_000_000_100),
                expiresAt: Date(timeIntervalSince1970: 1_000_000_400))
        ]
        try store.save([record])
        let log = SessionLogCapture()
        #expect(try store.load(logger: log.logger).records == [record])

        let older = """
            {"version":1,"sessions":[{"id":"ffff","name":"old","cwd":"/work/ffff","createdAt":"2001-09-09T01:46:40Z",
             "lastActivity":"2001-09-09T01:46:40Z","activeRun":"run-1"}]}
            """
        let path = try folder.write("older.json", older, mode: 0o600)
        let loaded = try StateFile.sessions(path: path).load(logger: log.logger).records
        #expect(loaded.map(\.id) == ["ffff"] && loaded.first?.openQuestions == nil, "\(loaded)")
        #expect(log.text.isEmpty, "\(log.text)")
    }

    @Test(arguments: [
        "{\"version\":1,\"sessions\":[{\"id\":",  // cut off mid-write
        "[]",  // JSON, but not the file's shape
        "",  // empty
        "\u{0}\u{1}binary",  // not text at all
    ])
    func aDamagedFileIsMovedAsideWithAWarning(_ contents: String) throws {
        let folder = try ScratchFolder()
        let path = try folder.write("sessions.json", contents, mode: 0o600)
        let log = SessionLogCapture()
        #expect(try StateFile.sessions(path: path).load(logger: log.logger).records.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains("sessions.json"))
        let aside = try #require(names.first { $0.hasPrefix("sessions.json.corrupt-") }, "\(names)")
        #expect(folder.read(aside) == contents, "kept as it was for a human to look at")
        #expect(log.text.count == 1)
        #expect(log.text.first?.hasPrefix("error \(path) is corrupt (") == true, "\(log.text)")
        #expect(log.text.first?.hasSuffix("moved it to \(folder.path)/\(aside) and started without its sessions") == true, "\(log.text)")

        // The next save starts a good file beside it.
        let store = StateFile.sessions(path: path)
        try store.save([Self.record("cccc", created: 1_000)])
        #expect(try store.load(logger: log.logger).records.map(\.id) == ["cccc"])
    }

    @Test func savingWhereNoFileCanBeWrittenThrowsInsteadOfCrashing() throws {
        let folder = try ScratchFolder()
        let store = StateFile.sessions(path: folder.path + "/missing/dir/sessions.json")
        #expect(throws: (any Error).self) { try store.save([Self.record("dddd", created: 1)]) }
    }

    /// Defect e: a file from a newer pi-relayd is refused with a clear error and left byte for
    /// byte as it was, since the daemon would otherwise save over it.
    @Test func aFileFromANewerVersionIsRefusedAndLeftAlone() throws {
        let folder = try ScratchFolder()
        let contents = "{\"version\":2,\"sessions\":[{\"id\":\"zzzz\",\"future\":true}]}"
        let path = try folder.write("sessions.json", contents, mode: 0o600)
        let log = SessionLogCapture()
        #expect {
            _ = try StateFile.sessions(path: path).load(logger: log.logger)
        } throws: { error in
            "\(error)" == "\(path) was written by a newer pi-relayd (file version 2; this one reads up to 1). It is left as it is: "
                + "run the newer pi-relayd, or move the file away to start without its sessions."
        }
        #expect(folder.read("sessions.json") == contents)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["sessions.json"])
    }

    /// A file that is there but cannot be read is not "no sessions": loaded as empty, it was saved
    /// over at the next change. Tested with a folder and a FIFO at the path, since the tests run as
    /// root, who reads any file whatever its owner and mode.
    @Test func aFileThatCannotBeReadIsRefusedNotTakenForNone() throws {
        let folder = try ScratchFolder()
        let store = StateFile.bindings(path: folder.path + "/bindings.json")
        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: false)
        let log = SessionLogCapture()
        #expect {
            _ = try store.load(logger: log.logger)
        } throws: { error in
            "\(error)".hasPrefix("cannot read \(store.path): it is not a regular file. It is left as it is, since starting without its bindings")
        }
        rmdir(store.path)
        #expect(mkfifo(store.path, 0o600) == 0)
        #expect(throws: StateFile<Binding>.Refused.self) { _ = try store.load(logger: log.logger) }
        unlink(store.path)
        #expect(try store.load(logger: log.logger).records.isEmpty)
    }

    /// A record that cannot be read costs only itself: it is kept beside the file, reported, and
    /// the other sessions come back.
    @Test func aRecordThatCannotBeReadIsKeptAsideAndTheOthersLoad() throws {
        let folder = try ScratchFolder()
        let good = Self.record("gggg", created: 1_000_000_000)
        let store = StateFile.sessions(path: folder.path + "/sessions.json")
        try store.save([good])
        let saved = folder.read("sessions.json")
        let broken = saved.replacingOccurrences(of: "\"sessions\" : [", with: "\"sessions\" : [{\"id\": \"xxxx\"},")
        _ = try folder.write("sessions.json", broken, mode: 0o600)

        let log = SessionLogCapture()
        let loaded = try store.load(logger: log.logger)
        #expect(loaded.records == [good])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let kept = try #require(names.first { $0.hasPrefix("sessions.json.rejected-") }, "\(names)")
        #expect(folder.read(kept).contains("xxxx"))
        #expect(
            loaded.problems.count == 1 && loaded.problems.first?.contains("1 session record(s) could not be read") == true,
            "\(loaded.problems)")
        #expect(loaded.problems.first?.hasSuffix("kept in \(folder.path)/\(kept); started with the other 1") == true)
        #expect(log.text.count == 1 && log.text.first?.hasPrefix("error ") == true, "\(log.text)")
    }

    /// Two damaged files in the same second are both kept: the second gets a name of its own.
    @Test func filesMovedAsideInTheSameSecondKeepNamesOfTheirOwn() throws {
        let folder = try ScratchFolder()
        let log = SessionLogCapture()
        for text in ["first", "second"] {
            let path = try folder.write("sessions.json", text, mode: 0o600)
            _ = try StateFile.sessions(path: path).load(logger: log.logger)
        }
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".corrupt-") }
        #expect(Set(aside.map { folder.read($0) }) == ["first", "second"], "\(aside)")
    }

    /// An older file is migrated step by step before its records are read, and saved in the
    /// current version. (Sessions and bindings are both at version 1 today; this store of
    /// another shape has two steps.)
    @Test func olderFilesAreMigratedForward() throws {
        struct Note: Codable, Sendable, Equatable { var id: String; var text: String; var pinned: Bool }
        let folder = try ScratchFolder()
        var file = StateFile<Note>(path: folder.path + "/notes.json", key: "notes", noun: "note", order: { $0.id < $1.id })
        file.migrations = [
            { old in  // 1 → 2: `body` is called `text`
                var new = old
                new["notes"] = .array(
                    (old["notes"]?.arrayValue ?? []).map { note in
                        var note = note
                        note["text"] = note["body"]
                        note["body"] = nil
                        return note
                    })
                return new
            },
            { old in  // 2 → 3: `pinned` appears, false for what was there
                var new = old
                new["notes"] = .array(
                    (old["notes"]?.arrayValue ?? []).map { note in
                        var note = note
                        note["pinned"] = false
                        return note
                    })
                return new
            },
        ]
        let path = try folder.write("notes.json", "{\"version\":1,\"notes\":[{\"id\":\"a\",\"body\":\"hello\"}]}", mode: 0o600)
        let log = SessionLogCapture()
        #expect(try file.load(logger: log.logger).records == [Note(id: "a", text: "hello", pinned: false)])
        #expect(log.text == ["notice \(path): migrated from version 1 to 3"])
        _ = try folder.write("notes.json", "{\"version\":2,\"notes\":[{\"id\":\"b\",\"text\":\"hi\"}]}", mode: 0o600)
        #expect(try file.load(logger: log.logger).records == [Note(id: "b", text: "hi", pinned: false)], "only the steps it needs")
        try file.save([Note(id: "c", text: "x", pinned: true)])
        #expect(folder.read("notes.json").contains("\"version\" : 3"))
    }

    @Test func bindingsUseTheSameStore() throws {
        let folder = try ScratchFolder()
        let store = StateFile.bindings(path: folder.path + "/bindings.json")
        let binding = Binding(
            key: "discord:1", messenger: "discord", channel: "1", thread: nil, sessionID: "aaaa", user: "u",
            since: Date(timeIntervalSince1970: 1_000_000_000))
        try store.save([binding])
        let log = SessionLogCapture()
        #expect(try store.load(logger: log.logger).records == [binding])
        #expect(folder.read("bindings.json").contains("\"version\" : 1"))
    }
}
