import PiRelaySDK
import Testing

@testable import DiscordPlugin

/// Every message and edit the plugin sends carries SUPPRESS_EMBEDS (discord-api.md §3): Discord's
/// servers fetch a link to preview it with nobody clicking, and a link in model output can carry
/// what the agent read (`https://x.example/?d=…`) to whoever runs that host.
@Suite struct EmbedSuppressionTests {
    @Test func everyBodySuppressesLinkPreviews() throws {
        let link = "see https://x.example/?d=c2VjcmV0"
        #expect(Poster.body(link)["flags"] == 4)
        #expect(Poster.body(link, mention: "42")["flags"] == 4)
        #expect(RunWriter.content(link)["flags"] == 4)
        #expect(QuestionLayout.closed(title: "Allow?", outcome: link)["flags"] == 4)
        #expect(Interactions.edit(Reply(text: link))["flags"] == 4)
        #expect(Interactions.data(Reply(text: link), ephemeral: true)["flags"] == 68, "ephemeral too")
        let question = try QuestionPost(json: ["id": "q1", "sessionId": "s1", "method": "confirm", "title": .string(link), "options": []])
        #expect(QuestionLayout.body(question, key: "k", now: .now, mention: nil)["flags"] == 4)
    }
}
