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

    /// pi-rpc §2: a `new_session` may wait on an extension's dialog, so its answer can come
    /// after the daemon stopped waiting for it (`sessions.limits.commandSeconds`). pi did start
    /// a new conversation then: the daemon takes it as one all the same (its history, its file,
    /// the chats' queued messages), instead of dropping the late answer.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aNewConversationSaidYesToAfterItsTimeoutStillCounts() async throws {
        try await TestHome.with { home in
            let (_, chat) = try await FileChat.start(
                in: home, environment: ["FAKE_PI_CONFIRM_NEW_SESSION": "1"],
                extraYAML: "sessions:\n  limits:\n    commandSeconds: 2\n    onMessage: newConversation\n")
            try chat.say("/use demo")
            try await chat.waitFor("bot: Watching demo")
            let before = try await home.run("state", "demo", "--json").json()["sessionFile"]
            try chat.say("begin afresh")
            try await chat.waitFor("Clear session?")
            try await Task.sleep(for: .seconds(3))
            try chat.say("yes")
            try await waitUntil("the new conversation is on record", timeout: .seconds(30)) {
                let entries = try await home.run("history", "demo", "--type", "new_conversation", "--json").json()
                return !(entries.arrayValue ?? []).isEmpty
            }
            let after = try #require(try await home.run("state", "demo", "--json").json()["sessionFile"]?.stringValue)
            #expect(before?.stringValue != after, "pi's new conversation has a file of its own")
            // Saved: a restart resumes the new conversation, not the one pi left.
            try await waitUntil("the session's record names pi's new file") {
                let saved = home.read("state/sessions.json")
                return saved.contains(after) || saved.contains(after.replacingOccurrences(of: "/", with: "\\/"))
            }
        }
    }
}
