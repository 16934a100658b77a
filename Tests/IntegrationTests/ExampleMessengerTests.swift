import Foundation
import Testing

/// examples/file-messenger.py, a messenger written from docs/PROTOCOL.md alone, under the real
/// daemon with the fake pi: a chat line binds and prompts a session, the answer streams into
/// the transcript and arrives whole, and a question is answered with a plain reply.
@Suite struct ExampleMessengerTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theFileMessengerPromptsWatchesAndAnswersAQuestion() async throws {
        try await TestHome.with { home in
            let (_, chat) = try await FileChat.start(in: home)
            try chat.say("/use demo")
            try await chat.waitFor("bot: Watching demo")

            try chat.say("!scenario slow 20 100")
            try await chat.waitFor("live [")
            try await chat.waitFor("bot (final):")
            #expect(chat.transcript.contains("bot (final):\nchunk 1 chunk 2"), "\(chat.transcript)")

            try chat.say("!scenario ui confirm")
            try await chat.waitFor("question: ")
            try chat.say("yes")
            try await chat.waitFor("confirm answer: true")
            try await chat.waitFor("question closed: me (filechat) answered: yes")
        }
    }
}
