import PiRelaySDK
import Testing

@testable import SlackPlugin
@testable import TelegramPlugin

/// `live-messages.json` as the released Telegram and Slack plugins write it: per run and place,
/// the messages a live answer shows, with an edit in doubt (`pending`) that a restarted plugin
/// settles instead of showing the answer twice.
@Suite struct LiveMessagesFixtureTests {
    @Test func telegram() async throws {
        let literal = #"{"r1 -100200\/7":[{"id":11,"text":"first chunk"},{"id":12,"pending":"tail and more","text":"tail"}]}"#
        let saved = try await StateFixture.roundTrip([String: [LiveRun<Int>.Message]].self, literal, as: TelegramPlugin.LiveMessages.file)
        #expect(TelegramPlugin.LiveMessages.file == "live-messages.json")
        #expect(saved["r1 -100200/7"]?.map(\.id) == [11, 12])
        #expect(saved["r1 -100200/7"]?.last?.pending == "tail and more")
        // The key is the run and the place: a forum topic's place is `chat/topic`.
        #expect(TelegramPlugin.Place(Target(channel: "-100200", thread: "-100200/7"))?.key == "-100200/7")
    }

    @Test func slack() async throws {
        let literal =
            #"{"r1 C1\/1700000000.000100":[{"id":"1700000000.000300","text":"first chunk"},{"id":"1700000000.000400","pending":"tail and more","text":"tail"}]}"#
        let saved = try await StateFixture.roundTrip([String: [LiveRun<String>.Message]].self, literal, as: SlackPlugin.LiveMessages.file)
        #expect(SlackPlugin.LiveMessages.file == "live-messages.json")
        #expect(saved["r1 C1/1700000000.000100"]?.map(\.id) == ["1700000000.000300", "1700000000.000400"])
        #expect(saved["r1 C1/1700000000.000100"]?.first?.pending == nil)
        // The key is the run and the place: a thread's place is `channel/thread ts`.
        #expect(SlackPlugin.Place(Target(channel: "C1", thread: "1700000000.000100"))?.key == "C1/1700000000.000100")
    }
}
