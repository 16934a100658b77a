import Foundation
import Testing

@testable import Supervisor

/// `sessions.keepDays`: the pi session files of spawned sessions that ended are removed that
/// many days after the end, each removal logged; nothing is kept or removed when it is 0.
@Suite struct EndedSessionsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func ended(_ name: String, daysAgo: Double, in folder: ScratchFolder) throws -> EndedSession {
        let file = folder.path + "/\(name).jsonl"
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: file))
        return EndedSession(id: name, name: name, sessionFile: file, endedAt: now.addingTimeInterval(-daysAgo * 86_400))
    }

    @Test func theSweeperPicksWhatIsPastItsDays() throws {
        let folder = try ScratchFolder()
        let old = try ended("old", daysAgo: 8, in: folder), young = try ended("young", daysAgo: 6.9, in: folder)
        #expect(EndedSessionSweeper(keepDays: 7).due([old, young], now: now) == [old])
        #expect(EndedSessionSweeper(keepDays: 0).due([old, young], now: now).isEmpty, "0 keeps everything")
    }

    @Test func filesPastTheirDaysAreRemovedAndTheRestKept() async throws {
        let folder = try ScratchFolder()
        let capture = SessionLogCapture()
        let store = StateFile<EndedSession>.endedSessions(path: folder.path + "/ended-sessions.json")
        let shelf = EndedSessions(store: store, saved: [], keepDays: 7, logger: capture.logger)
        let old = try ended("old", daysAgo: 10, in: folder), young = try ended("young", daysAgo: 1, in: folder)
        await shelf.note(old)
        await shelf.note(young)
        await shelf.note(EndedSession(id: "x", name: "x", sessionFile: folder.path + "/notes.txt", endedAt: now))
        #expect(await shelf.listed.map(\.name) == ["old", "young"], "only pi's .jsonl files")
        await shelf.sweep(now: now)
        #expect(!FileManager.default.fileExists(atPath: old.sessionFile))
        #expect(FileManager.default.fileExists(atPath: young.sessionFile))
        #expect(capture.text.contains { $0.contains("removed \(old.sessionFile), the pi session file of old, ended 10 day(s) ago") })
        // Saved: a restarted daemon knows what is left.
        #expect(try store.load(logger: capture.logger).records.map(\.name) == ["young"])

        let off = EndedSessions(store: store, saved: [], keepDays: 0, logger: capture.logger)
        await off.note(try ended("kept", daysAgo: 100, in: folder))
        #expect(await off.listed.isEmpty)
    }
}
