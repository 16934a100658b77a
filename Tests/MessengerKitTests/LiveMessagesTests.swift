import Foundation
import Logging
import MessengerKit
import PiRelaySDK
import Testing

@Suite struct LiveMessagesTests {
    /// The plugin's state folder, one per test.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-" + UUID().uuidString).path

    func removeFolder() { try? FileManager.default.removeItem(atPath: folder) }

    func liveMessages(_ platform: FakePlatform, same: @escaping @Sendable (String, String) -> Bool = { $0 == $1 }) -> LiveMessages<FakePlatform> {
        LiveMessages(writer: platform, store: StateStore(directory: folder), logger: Logger(label: "test"), same: same)
    }

    static let room = FakeRoom(key: "C1")

    @Test func viewsThatArriveWhileAWriteIsOutAreCoalescedToTheNewest() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let live = liveMessages(platform)
        await platform.hold()
        await live.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "one")
        try await waitFor { await platform.writes.count == 1 }
        for rev in 2...5 { await live.update(runID: "r1", place: Self.room, rev: rev, chunks: [], tail: "one \(rev)") }
        await platform.release()
        try await waitFor { await platform.writes.count == 2 }
        let shown = await live.finish("r1", in: Self.room)
        #expect(await platform.writes == ["send C1: one", "edit 101: one 5"])
        #expect(shown == [LiveRun<Int>.Message(id: 101, text: "one 5")])
    }

    @Test func theFinalTakesOverFromAWriteInFlight() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let live = liveMessages(platform)
        await platform.hold()
        await live.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "one")
        await live.update(runID: "r1", place: Self.room, rev: 2, chunks: [], tail: "one two")
        try await waitFor { await platform.writes.count == 1 }
        // Unstructured on purpose: finish must wait for the held write, which the test releases.
        let finishing = Task { await live.finish("r1", in: Self.room) }
        // finish marks the run before it first waits: from then on the newer view is not written.
        try await waitFor { await live.activeCount == 0 }
        await platform.release()
        let shown = await finishing.value
        #expect(shown == [LiveRun<Int>.Message(id: 101, text: "one")], "the write in flight is in; the newer view is the final's")
        #expect(await platform.writes == ["send C1: one"])
        await live.update(runID: "r1", place: Self.room, rev: 3, chunks: [], tail: "late")
        #expect(await platform.writes == ["send C1: one"], "no live write after the final")
    }

    @Test func aRestartedPluginEditsTheMessagesAnEarlierOneSaved() async throws {
        defer { removeFolder() }
        let first = FakePlatform()
        let before = liveMessages(first)
        await before.update(runID: "r1", place: Self.room, rev: 1, chunks: ["chunk one"], tail: "tail")
        try await waitFor { await first.writes.count == 2 }
        _ = await before.finish("r1", in: Self.room)

        let second = FakePlatform()
        let after = liveMessages(second)
        await after.update(runID: "r1", place: Self.room, rev: 1, chunks: ["chunk one"], tail: "tail and more")
        let shown = await after.finish("r1", in: Self.room)
        #expect(await second.writes == ["edit 102: tail and more"], "nothing posted twice")
        #expect(shown.map(\.text) == ["chunk one", "tail and more"])

        await after.done("r1", in: Self.room)
        let third = FakePlatform()
        let fresh = liveMessages(third)
        await fresh.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "again")
        _ = await fresh.finish("r1", in: Self.room)
        #expect(await third.writes == ["send C1: again"], "a run that is done is forgotten")
    }

    /// The files in the plugin's `live-messages` folder, one per run and place still kept.
    func runFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + LiveMessages<FakePlatform>.folder)) ?? [])
            .filter { $0.hasSuffix(".json") }
    }

    @Test func eachRunIsSavedInAFileOfItsOwnAndForgottenWhenDone() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let live = liveMessages(platform)
        await live.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "one")
        await live.update(runID: "r2", place: FakeRoom(key: "C2/t 1"), rev: 1, chunks: [], tail: "two")
        try await waitFor { await platform.writes.count == 2 }
        try await waitFor { runFiles().count == 2 }
        _ = await live.finish("r1", in: Self.room)
        await live.done("r1", in: Self.room)
        #expect(runFiles().count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + LiveMessages<FakePlatform>.file), "no single file is written")
    }

    /// More runs saved than are kept (runs whose final never came) and a restart: the next run's
    /// save forgets the oldest, not every run the new process has not touched yet, so a run
    /// that was streaming still edits its messages when its final comes.
    @Test func aRestartedPluginOverItsLimitForgetsTheOldestRunsNotTheStreamingOne() async throws {
        defer { removeFolder() }
        let first = FakePlatform()
        let before = liveMessages(first)
        for n in 0..<200 { await before.update(runID: "stale\(n)", place: Self.room, rev: 1, chunks: [], tail: "stale") }
        try await waitFor { await first.writes.count == 200 }
        try await waitFor { runFiles().count == 200 }
        try await Task.sleep(for: .milliseconds(50))
        // The write to the platform comes before the save: wait for the run's own file, not for
        // a count that already holds.
        let stale = Set(runFiles())
        await before.update(runID: "streaming", place: Self.room, rev: 1, chunks: [], tail: "half an answer")
        try await waitFor { await first.writes.count == 201 }
        try await waitFor {
            let now = Set(runFiles()); return now.count == 200 && !now.isSubset(of: stale)
        }

        let second = FakePlatform()
        let after = liveMessages(second)
        let streaming = Set(runFiles())
        await after.update(runID: "new", place: Self.room, rev: 1, chunks: [], tail: "another")
        try await waitFor { await second.writes.count == 1 }
        try await waitFor {
            let now = Set(runFiles()); return now.count == 200 && !now.isSubset(of: streaming)
        }
        let shown = await after.finish("streaming", in: Self.room)
        #expect(shown.map(\.text) == ["half an answer"], "the streaming run's message was kept")
    }

    /// `live-messages.json` as a plugin before per-run files left it: the upgraded plugin edits
    /// the messages it names, and its first write moves them into files of their own.
    @Test func aPluginUpgradedFromTheSingleFileEditsItsMessages() async throws {
        defer { removeFolder() }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let single = #"{"r0 C1":[{"id":7,"text":"old run"}],"r1 C1":[{"id":101,"text":"chunk one"},{"id":102,"text":"tail"}]}"#
        try Data(single.utf8).write(to: URL(fileURLWithPath: folder + "/" + LiveMessages<FakePlatform>.file))

        let platform = FakePlatform()
        let live = liveMessages(platform)
        await live.update(runID: "r1", place: Self.room, rev: 1, chunks: ["chunk one"], tail: "tail and more")
        let shown = await live.finish("r1", in: Self.room)
        #expect(await platform.writes == ["edit 102: tail and more"], "nothing posted twice")
        #expect(shown.map(\.text) == ["chunk one", "tail and more"])
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + LiveMessages<FakePlatform>.file))
        #expect(runFiles().count == 2, "both runs moved into files of their own")

        let again = FakePlatform()
        let restarted = liveMessages(again)
        await restarted.update(runID: "r0", place: Self.room, rev: 1, chunks: [], tail: "old run, more")
        _ = await restarted.finish("r0", in: Self.room)
        #expect(await again.writes == ["edit 7: old run, more"], "the other run came along")
    }

    /// A run's file cut short (the disk filled mid-write on an older system, or a hand edit) is
    /// passed over: the other runs load, and that run starts afresh.
    @Test func anUnreadableRunFileIsPassedOver() async throws {
        defer { removeFolder() }
        let first = FakePlatform()
        let before = liveMessages(first)
        await before.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "one")
        await before.update(runID: "r2", place: Self.room, rev: 1, chunks: [], tail: "two")
        try await waitFor { runFiles().count == 2 }
        _ = await before.finish("r1", in: Self.room)
        _ = await before.finish("r2", in: Self.room)
        let runs = folder + "/" + LiveMessages<FakePlatform>.folder
        let broken = try #require(runFiles().sorted().first)
        try Data(#"{"key":"r"#.utf8).write(to: URL(fileURLWithPath: runs + "/" + broken))

        let second = FakePlatform()
        let after = liveMessages(second)
        for run in ["r1", "r2"] {
            await after.update(runID: run, place: Self.room, rev: 2, chunks: [], tail: "\(run) more")
            _ = await after.finish(run, in: Self.room)
        }
        let writes = await second.writes
        #expect(writes.filter { $0.hasPrefix("edit ") }.count == 1, "the readable run is edited: \(writes)")
        #expect(writes.filter { $0.hasPrefix("send ") }.count == 1, "the unreadable one is posted anew: \(writes)")
    }

    @Test func anEditThatGotANewIDIsRecordedAndEqualTextsAreNotEdited() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        await platform.renumber()
        let live = liveMessages(platform, same: { $0.lowercased() == $1.lowercased() })
        await live.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "abc")
        try await waitFor { await platform.writes.count == 1 }
        await live.update(runID: "r1", place: Self.room, rev: 2, chunks: [], tail: "abc def")
        try await waitFor { await platform.writes.count == 2 }
        await live.update(runID: "r1", place: Self.room, rev: 3, chunks: [], tail: "ABC DEF")
        let shown = await live.finish("r1", in: Self.room)
        #expect(await platform.writes == ["send C1: abc", "edit 101: abc def"])
        #expect(shown.map(\.id) == [102])
        #expect(await live.activeCount == 0)
    }

    @Test func twoConversationsWatchingOneRunGetMessagesOfTheirOwn() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let live = liveMessages(platform)
        await live.update(runID: "r1", place: FakeRoom(key: "C1"), rev: 1, chunks: [], tail: "hello")
        await live.update(runID: "r1", place: FakeRoom(key: "C2/t"), rev: 1, chunks: [], tail: "hello")
        #expect(await live.activeCount == 2)
        _ = await live.finish("r1", in: FakeRoom(key: "C1"))
        _ = await live.finish("r1", in: FakeRoom(key: "C2/t"))
        #expect(await Set(platform.writes) == ["send C1: hello", "send C2/t: hello"])
    }

    func waitFor(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<500 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition never held")
    }

    @Test func aViewThePlatformRefusesForGoodStopsTillTheFinal() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let live = liveMessages(platform)
        await platform.forbid()
        await live.update(runID: "r1", place: Self.room, rev: 1, chunks: [], tail: "one")
        try await waitFor { await platform.refusals == 1 }
        for rev in 2...5 { await live.update(runID: "r1", place: Self.room, rev: rev, chunks: [], tail: "one \(rev)") }
        try await Task.sleep(for: .milliseconds(50))
        #expect(await platform.writes.isEmpty)
        #expect(await platform.refusals == 1, "one refused call, not one per view")
        #expect(await live.finish("r1", in: Self.room).isEmpty)
    }
}
