import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A messenger whose state files the disk refuses goes on relaying, and says so in its `status`
/// answer: `pi-relayd status` shows a PROBLEM naming the plugin and the file until a later write
/// of it succeeds. The full disk is the telegram plugin's RLIMIT_FSIZE set to one byte after
/// start-up (BoundFileSizeLimit): every write to a file fails with EFBIG, as with ENOSPC, and
/// the plugin, which ignores SIGXFSZ, is not killed for it.
@Suite struct StackPluginDiskFullTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aMessengersRefusedStateWriteIsAProblemUntilItIsSaved() async throws {
        try await TelegramStack.with { stack in
            let daemon = try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) full")
            try await stack.waitForBotMessage(in: chat, containing: "Started full")
            #expect(try await Self.problems(stack).isEmpty)

            let telegram = try #require(try await daemon.plugins()["telegram"]?.pid)
            try BoundFileSizeLimit.set(telegram, bytes: 1)
            // The message's journal (inbox.json) cannot be saved; the prompt still reaches pi.
            try await stack.dm("while the disk is full")
            try await waitUntil("the prompt reached pi") { !stack.piPrompts(containing: "while the disk is full").isEmpty }
            let problems = try await waitFor("status reports the refused write") {
                let p = try await Self.problems(stack)
                return p.contains { $0.hasPrefix("plugin telegram: inbox.json not saved:") } ? p : nil
            }
            #expect(problems.contains { $0.contains("File too large") }, "\(problems)")
            let status = try await stack.cli(["status"])
            #expect(status.stdout.contains("PROBLEM: plugin telegram: inbox.json not saved:"), "\(status)")
            #expect(try await daemon.plugins()["telegram"]?.pid == telegram, "the plugin was not killed for its refused write")
            // Telegram sends the unconfirmed update again at once, and one at a time when asked
            // for it again within half a second (telegram-bot-api.md §4): the poller pauses
            // instead of asking without end, which would never reach a newer message.
            let polls = try await stack.fake.get("/updates")["polls_total"]?.intValue ?? 0
            try await Task.sleep(for: .seconds(3))
            let later = try await stack.fake.get("/updates")["polls_total"]?.intValue ?? 0
            #expect(later - polls < 10, "\(later - polls) polls in 3 s while the journal could not be saved")

            try BoundFileSizeLimit.set(telegram, bytes: nil)
            try await stack.dm("after the disk had room again")
            try await waitUntil("the message sent after the disk had room again reached pi", timeout: .seconds(40)) {
                !stack.piPrompts(containing: "after").isEmpty
            }
            var remaining: [String] = []
            do {
                try await waitUntil("the problem clears once the journal is saved") {
                    remaining = try await Self.problems(stack)
                    return remaining.isEmpty
                }
            } catch {
                Issue.record("still reported: \(remaining)")
            }
        }
    }

    static func problems(_ stack: TelegramStack) async throws -> [String] {
        try await stack.json("status")["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

extension StackPluginDiskFullTests {
    /// slack-api.md §3 (items 5 and 6): an event acknowledged is never sent again. While the
    /// slack plugin's journal cannot be saved, a message waiting for its hand-over (behind a
    /// `/compact` of the same chat) lives only in its memory: its event is left unacknowledged,
    /// so that after a kill -9 Slack sends it again to the restarted plugin and nothing is lost.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func slackLeavesAnEventItCouldNotJournalForSlackToSendAgain() async throws {
        try await SlackStack.with { stack in
            let daemon = try await stack.start(environment: ["FAKE_PI_COMPACT_MS": "8000"])
            try await stack.command("new \(stack.workspace) full")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "Started full")
            try await stack.say("warm up")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "Echo: warm up")

            let slack = try #require(try await daemon.plugins()["slack"]?.pid)
            try BoundFileSizeLimit.set(slack, bytes: 1)
            // The chat's lane is held by the compaction's hand-over; the message waits behind it.
            try await stack.say("/compact")
            try await waitUntil("pi compacts") {
                ((try? String(contentsOfFile: stack.piLog, encoding: .utf8)) ?? "").contains("\"type\":\"compact\"")
            }
            try await stack.say("kept through the kill")
            try await waitUntil("the plugin took the message in") {
                stack.home.pluginLog("slack").contains("cannot save the inbox journal")
            }
            try await Task.sleep(for: .milliseconds(500))
            kill(slack, SIGKILL)
            _ = try await daemon.waitForPlugin("slack", "running again") { $0.state == "running" && $0.pid != nil && $0.pid != slack }
            try await waitUntil("the message reached pi", timeout: .seconds(60)) {
                !stack.piPrompts(containing: "kept through the kill").isEmpty
            }
        }
    }
}
