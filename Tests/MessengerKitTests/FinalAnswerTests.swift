import Foundation
import Logging
import MessengerKit
import PiRelaySDK
import Testing

@Suite struct FinalAnswerTests {
    /// The plugin's state folder, one per test.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("final-" + UUID().uuidString).path
    let room = FakeRoom(key: "C1")

    func removeFolder() { try? FileManager.default.removeItem(atPath: folder) }

    /// What a plugin process has: its live messages and the final answer over them, from the
    /// state folder (a second call is the plugin restarted).
    func plugin(_ platform: FakePlatform) -> (LiveMessages<FakePlatform>, FinalAnswer<FakePlatform>) {
        let store = StateStore(directory: folder)
        let live = LiveMessages(writer: platform, store: store, logger: Logger(label: "test"))
        return (live, FinalAnswer(writer: platform, live: live, parts: DeliveryParts(store: store)))
    }

    func stream(_ live: LiveMessages<FakePlatform>, _ platform: FakePlatform, chunks: [String], tail: String) async throws {
        await live.update(runID: "r1", place: room, rev: 1, chunks: chunks, tail: tail)
        for _ in 0..<500 where await platform.writes.count < chunks.count + 1 { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func theLiveMessagesBecomeTheAnswerAndASurplusOneIsDeleted() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let (live, answer) = plugin(platform)
        try await stream(live, platform, chunks: ["one", "two"], tail: "three")
        #expect(await platform.writes == ["send C1: one", "send C1: two", "send C1: three"])
        try await answer.post("d1", runID: "r1", chunks: ["one", "two, finished"], in: room)
        #expect(await platform.writes.dropFirst(3) == ["edit 102: two, finished", "delete 103"])
    }

    /// A live edit still waiting for its place when the final comes gives way, unsent: the final
    /// does not wait for the budget to let through a write it replaces anyway, and the edit in
    /// doubt is made by the final.
    @Test(.timeLimit(.minutes(1))) func theFinalTakesOverALiveEditStillWaitingForItsPlace() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let (live, answer) = plugin(platform)
        try await stream(live, platform, chunks: [], tail: "draft")
        await platform.queueEdits()
        await live.update(runID: "r1", place: room, rev: 2, chunks: [], tail: "draft, longer")
        for _ in 0..<500 where await platform.editsWaiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await platform.editsWaiting == 1)
        try await answer.post("d1", runID: "r1", chunks: ["draft, longer"], in: room)
        #expect(await platform.writes == ["send C1: draft", "edit 101: draft, longer"], "the final's edit, not the live one")
        #expect(await platform.editsWaiting == 0)
    }

    /// So does the run's first post still waiting for its place (a short run in a chat whose
    /// budget the live views would leave with no spare write): the final posts the answer at once.
    @Test(.timeLimit(.minutes(1))) func theFinalTakesOverALivePostStillWaitingForItsPlace() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let (live, answer) = plugin(platform)
        await platform.queueSends()
        await live.update(runID: "r1", place: room, rev: 1, chunks: [], tail: "draft")
        for _ in 0..<500 where await platform.sendsWaiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await platform.sendsWaiting == 1)
        try await answer.post("d1", runID: "r1", chunks: ["draft, done"], in: room)
        #expect(await platform.writes == ["final C1: draft, done"], "the final's post, not the live one")
        #expect(await platform.sendsWaiting == 0)
    }

    @Test func aFinalCutByACrashSendsOnlyWhatHadNotGoneOutWhenRepeated() async throws {
        defer { removeFolder() }
        let before = FakePlatform()
        let (_, killed) = plugin(before)
        await before.fail(after: 1)
        await #expect(throws: FakePlatform.Refused.self) {
            try await killed.post("d1", runID: nil, chunks: ["x", "y", "z"], in: room)
        }
        let after = FakePlatform()
        let (_, restarted) = plugin(after)
        try await restarted.post("d1", runID: nil, chunks: ["x", "y", "z"], in: room)
        #expect(await before.writes == ["final C1: x"])
        #expect(await after.writes == ["final C1: y", "final C1: z"])
    }

    @Test func theLiveViewIsRememberedUntilWhatComesBeforeDoneIsOut() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let (live, answer) = plugin(platform)
        try await stream(live, platform, chunks: [], tail: "draft")
        struct FileFailed: Error {}
        await #expect(throws: FileFailed.self) {
            try await answer.post("d1", runID: "r1", chunks: ["answer"], in: room) { _ in throw FileFailed() }
        }
        #expect(await platform.writes == ["send C1: draft", "edit 101: answer"])

        let again = FakePlatform()
        let (_, restarted) = plugin(again)
        var filed = false
        try await restarted.post("d1", runID: "r1", chunks: ["answer"], in: room) { _ in filed = true }
        #expect(filed)
        #expect(await again.writes.isEmpty, "the answer's part was done; nothing is posted again")
        let third = FakePlatform()
        let (thirdLive, _) = plugin(third)
        try await stream(thirdLive, third, chunks: [], tail: "new")
        #expect(await third.writes == ["send C1: new"], "after done, the run's live messages are forgotten")
    }

    @Test func eachChunkPostedAnewSaysWhichPartItIsAndTheOutcomeCountsThem() async throws {
        defer { removeFolder() }
        let platform = FakePlatform()
        let (live, answer) = plugin(platform)
        try await stream(live, platform, chunks: ["one"], tail: "tw")
        let outcome = try await answer.post("d1", runID: "r1", chunks: ["one", "two", "three"], in: room)
        #expect(outcome == .init(reused: 2, posted: 1))
        #expect(await platform.slots == [LiveSlot(run: "r1", index: 0), LiveSlot(run: "r1", index: 1)])
        #expect(await platform.parts == [FinalPart(delivery: "d1", runID: "r1", index: 2, count: 3, firstPosted: true)])
        #expect(await platform.parts.first?.isLast == true)
    }
}
