import Foundation
import PiRelaySDK
import Testing

/// Issue 17, part A, on Telegram: the same command layer behind Telegram's private chat. Quiet
/// progress, `/summary`, pause and resume, and a queued prompt's line (Telegram has no ⏳ here).
@Suite struct StackTelegramChatExperienceTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func quietSummaryPauseResumeAndTheQueuedLineOnTelegram() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")

            // quiet: the answer is posted once, never edited in place.
            try await stack.dm("/progress quiet")
            try await stack.waitForBotMessage(in: chat, containing: "Progress here is now quiet")
            try await stack.dm("!scenario slow 20 40")
            let quiet = try #require(try await stack.waitForBotMessage(in: chat, containing: "chunk 20").first)
            #expect((quiet["edit_count"]?.intValue ?? 0) == 0, "quiet shows no live view: \(quiet)")

            // A prompt while the agent works: one short line.
            try await stack.dm("/progress normal")
            // Long enough (9 s) that the next message still finds it running on a loaded machine.
            try await stack.dm("!scenario slow 30 300")
            // The quiet run's answer has "chunk 3 " too: this run's live view is the second.
            try await stack.waitForBotMessage(in: chat, containing: "chunk 3 ", count: 2)
            try await stack.dm("and then the docs")
            try await stack.waitForBotMessage(in: chat, containing: "Queued as follow-up for tg.")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: and then the docs")

            // Paused: refused here; a run from the terminal is summed up on /resume.
            try await stack.dm("/pause")
            try await stack.waitForBotMessage(in: chat, containing: "Paused: nothing from tg reaches this chat")
            try await stack.dm("are you there?")
            try await stack.waitForBotMessage(in: chat, containing: "This chat is paused")
            let before = try await stack.botMessages(chat).count
            let sent = try await stack.cli(["send", "tg", "!scenario tools", "--wait"])
            #expect(sent.status == 0, "\(sent)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await stack.botMessages(chat).count == before, "the paused chat hears nothing of the run")
            try await stack.dm("/resume")
            try await stack.waitForBotMessage(in: chat, containing: "While paused, a run ended")
            try await stack.dm("/summary")
            try await stack.waitForBotMessage(in: chat, containing: "Tools: 9 calls (bash ×2", count: 2)
        }
    }

    /// The other two progress modes on Telegram: verbose shows tool output under the tool lines;
    /// completion-only posts one message at the end, never edited, with no "typing…" before it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func verboseAndCompletionOnlyOnTelegram() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")

            try await stack.dm("/progress verbose")
            try await stack.waitForBotMessage(in: chat, containing: "Progress here is now verbose")
            try await stack.dm("!scenario tools")
            try await stack.waitForBotMessage(in: chat, containing: "↳")
            try await stack.waitForBotMessage(in: chat, containing: "the notes are written")

            try await stack.dm("/progress completion-only")
            try await stack.waitForBotMessage(in: chat, containing: "Progress here is now completion-only")
            let typedBefore = (try await stack.fake.get("/actions?chat_id=\(chat)")["actions"]?.arrayValue ?? []).count
            try await stack.dm("!scenario slow 20 60")
            let done = try #require(try await stack.waitForBotMessage(in: chat, containing: "chunk 20").first)
            #expect((done["edit_count"]?.intValue ?? 0) == 0, "one message, never edited: \(done)")
            try await Task.sleep(for: .seconds(1))
            let typedAfter = (try await stack.fake.get("/actions?chat_id=\(chat)")["actions"]?.arrayValue ?? []).count
            #expect(typedAfter == typedBefore, "no typing… before it")
        }
    }
}
