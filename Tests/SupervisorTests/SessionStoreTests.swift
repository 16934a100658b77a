import Foundation
import Testing
@testable import Supervisor

/// state/sessions.json: saved atomically, read back whole; a damaged file is moved aside with a
/// warning and the daemon starts without it, never crashes.
@Suite struct SessionStoreTests {
    static func record(_ id: String, created: TimeInterval, pid: Int32? = nil) -> SessionRecord {
        // Whole seconds: the file keeps ISO 8601 times without fractions.
        SessionRecord(id: id, name: "name-\(id)", cwd: "/work/\(id)", sessionFile: "/agent/sessions/\(id).jsonl",
                      model: "anthropic/claude-opus-4-6", createdAt: Date(timeIntervalSince1970: created),
                      lastActivity: Date(timeIntervalSince1970: created + 60), pid: pid)
    }

    @Test func recordsComeBackAsSaved() throws {
        let folder = try ScratchFolder()
        let store = SessionStore(path: folder.path + "/sessions.json")
        let log = SessionLogCapture()
        #expect(store.load(logger: log.logger).isEmpty, "no file yet: no sessions, no fuss")
        #expect(log.text.isEmpty)

        let records = [Self.record("bbbb", created: 2_000_000_000, pid: 4242), Self.record("aaaa", created: 1_000_000_000)]
        try store.save(records)
        let loaded = store.load(logger: log.logger)
        #expect(loaded == records.reversed(), "oldest first")
        #expect(log.text.isEmpty)
        let file = folder.read("sessions.json")
        #expect(file.contains("\"version\" : 1"), "\(file)")
        #expect(file.contains("\"createdAt\" : \"2001-09-09T01:46:40Z\""), "\(file)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["sessions.json"], "no temporary file left")
    }

    /// The dialogs open at the save come back whole, so a daemon killed with -9 can close them
    /// in the chats after its restart; a file from before they were saved still loads, with none.
    @Test func openQuestionsComeBackAsSavedAndOlderFilesHaveNone() throws {
        let folder = try ScratchFolder()
        let store = SessionStore(path: folder.path + "/sessions.json")
        var record = Self.record("eeee", created: 1_000_000_000, pid: 77)
        record.activeRun = "run-3"
        record.openQuestions = [PendingQuestion(id: "q-1", sessionId: "eeee", method: "select", title: "Pick one",
                                                message: "for the build", options: ["red", "green"], placeholder: nil,
                                                prefill: nil, askedAt: Date(timeIntervalSince1970: 1_000_000_100),
                                                expiresAt: Date(timeIntervalSince1970: 1_000_000_400))]
        try store.save([record])
        let log = SessionLogCapture()
        #expect(store.load(logger: log.logger) == [record])

        let older = """
            {"version":1,"sessions":[{"id":"ffff","name":"old","cwd":"/work/ffff","createdAt":"2001-09-09T01:46:40Z",
             "lastActivity":"2001-09-09T01:46:40Z","activeRun":"run-1"}]}
            """
        let path = try folder.write("older.json", older, mode: 0o600)
        let loaded = SessionStore(path: path).load(logger: log.logger)
        #expect(loaded.map(\.id) == ["ffff"] && loaded.first?.openQuestions == nil, "\(loaded)")
        #expect(log.text.isEmpty, "\(log.text)")
    }

    @Test(arguments: [
        "{\"version\":1,\"sessions\":[{\"id\":",          // cut off mid-write
        "{\"version\":1,\"sessions\":[{\"id\":\"x\"}]}",  // fields missing
        "",                                                 // empty
        "\u{0}\u{1}binary",                                 // not text at all
    ])
    func aDamagedFileIsMovedAsideWithAWarning(_ contents: String) throws {
        let folder = try ScratchFolder()
        let path = try folder.write("sessions.json", contents, mode: 0o600)
        let log = SessionLogCapture()
        #expect(SessionStore(path: path).load(logger: log.logger).isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains("sessions.json"))
        let aside = try #require(names.first { $0.hasPrefix("sessions.json.corrupt-") }, "\(names)")
        #expect(folder.read(aside) == contents, "kept as it was for a human to look at")
        #expect(log.text.count == 1)
        #expect(log.text.first?.hasPrefix("warning \(path) is corrupt (") == true, "\(log.text)")
        #expect(log.text.first?.hasSuffix("moved it to \(folder.path)/\(aside) and started without it") == true, "\(log.text)")

        // The next save starts a good file beside it.
        let store = SessionStore(path: path)
        try store.save([Self.record("cccc", created: 1_000)])
        #expect(store.load(logger: log.logger).map(\.id) == ["cccc"])
    }

    @Test func savingWhereNoFileCanBeWrittenThrowsInsteadOfCrashing() throws {
        let folder = try ScratchFolder()
        let store = SessionStore(path: folder.path + "/missing/dir/sessions.json")
        #expect(throws: (any Error).self) { try store.save([Self.record("dddd", created: 1)]) }
    }
}
