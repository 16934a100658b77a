import Foundation
import Testing

/// pi-rpc §2: an extension may veto `new_session` (`{cancelled: true}`), asking first with a
/// `confirm`, and pi checks the veto before it aborts anything. A `/reset` said no to leaves the
/// run going on: its answer still comes, whole, and the chat is told the conversation stays.
@Suite struct ResetVetoTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aResetAnExtensionSaysNoToLeavesTheRunGoing() async throws {
        try await TestHome.with { home in
            // The fake's rpc-demo-like extension asks "Clear session?" before a new session.
            let (_, chat) = try await FileChat.start(in: home, environment: ["FAKE_PI_CONFIRM_NEW_SESSION": "1"])
            try chat.say("/use demo")
            try await chat.waitFor("bot: Watching demo")
            // 30 s: the question and its answer come while it runs, even on a loaded machine.
            try chat.say("!scenario slow 60 500")
            try await chat.waitFor("live [")
            try chat.say("/reset")
            try await chat.waitFor("Clear session?")
            try chat.say("no")
            try await chat.waitFor("demo keeps its conversation")
            try await chat.waitFor("bot (final):", timeout: .seconds(90))
            #expect(chat.transcript.contains("chunk 60"), "the run's answer came whole: \(chat.transcript)")
            #expect(!chat.transcript.contains("starts a new conversation"), "\(chat.transcript)")
        }
    }
}
