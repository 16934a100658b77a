import Foundation
import PiRelaySDK
import Testing

@testable import DiscordPlugin

/// The resume point written beside the gateway's reader: points asked for faster than the disk
/// takes them end with the newest on disk (a writer that drops what came while it wrote fails
/// here), and a folder that cannot be written leaves the writer ready for the next point.
@Suite struct ResumeWriterTests {
    static func state(_ sequence: Int) -> ResumeState {
        ResumeState(sessionID: "s", resumeURL: "wss://x", sequence: sequence, botUserID: "1", applicationID: "2", savedAt: 0)
    }

    /// Whether `condition` comes true within 60 s: the writes run beside the caller. The bound is
    /// wide because under the thread sanitizer on 2 cores, this target's pure tests have taken
    /// 20–65 s to finish (the pool is busy), and the writer's task waits as long.
    static func within(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func pointsAskedForWhileItWritesEndWithTheNewestOnDisk() async throws {
        let folder = NSTemporaryDirectory() + "resume-writer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let writer = ResumeWriter(store: store, journaled: {})
        for sequence in 1...200 { await writer.write(Self.state(sequence)) }
        #expect(await Self.within { store.load(ResumeState.self, from: ResumeState.file)?.sequence == 200 }, "the last point on disk")
        try await Task.sleep(for: .milliseconds(100))
        #expect(store.load(ResumeState.self, from: ResumeState.file)?.sequence == 200, "no older point was written after it")
    }

    /// A point is written only once the journal holds what came before it.
    @Test func aPointWaitsForTheJournal() async throws {
        let folder = NSTemporaryDirectory() + "resume-writer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let (written, journal) = AsyncStream<Void>.makeStream()
        let writer = ResumeWriter(store: store, journaled: { for await _ in written { return } })
        await writer.write(Self.state(7))
        try await Task.sleep(for: .milliseconds(200))
        #expect(store.load(ResumeState.self, from: ResumeState.file) == nil, "not before the journal is written")
        journal.yield()
        #expect(await Self.within { store.load(ResumeState.self, from: ResumeState.file)?.sequence == 7 }, "written after it")
    }

    @Test func aRefusedWriteLeavesTheWriterReady() async throws {
        let folder = NSTemporaryDirectory() + "resume-writer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        // The state folder replaced by a file: every write is refused, as on a full disk.
        try FileManager.default.removeItem(atPath: folder)
        try Data().write(to: URL(fileURLWithPath: folder))
        let writer = ResumeWriter(store: store, journaled: {})
        await writer.write(Self.state(1))
        #expect(await Self.within { await store.failedWrites >= 1 }, "the write was refused")
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        await writer.write(Self.state(2))
        #expect(await Self.within { store.load(ResumeState.self, from: ResumeState.file)?.sequence == 2 }, "the next point on disk")
    }
}
