import PiRelaySDK
import Testing

@testable import DiscordPlugin
@testable import SlackPlugin
@testable import TelegramPlugin

/// `inbox.json` as each messenger's released plugin writes it: the journal of messages taken in
/// and not yet handed over, and the ids that make a redelivered message a duplicate.
@Suite struct InboxFixtureTests {
    @Test func discord() async throws {
        let literal =
            #"{"pending":[{"attachments":[{"contentType":"image\/png","filename":"a.png","size":3,"url":"https:\/\/cdn.discordapp.com\/a.png"}],"chat":{"channel":"D1","dm":true,"mentioned":false,"messenger":"discord","user":"U1","userName":"alice"},"id":"M1","text":"hello"}],"seen":["M1","M0"]}"#
        var record = try await StateFixture.roundTrip(DiscordPlugin.InboxRecord.self, literal, as: "inbox.json")
        #expect(record.pending.map(\.id) == ["M1"])
        #expect(record.pending.first?.attachments.first?.filename == "a.png")
        #expect(record.pending.first?.chat.dm == true)
        let againTake = record.take(DiscordPlugin.PendingMessage(id: "M0", chat: record.pending[0].chat, text: "again", attachments: []))
        #expect(!againTake, "a message taken in before is a duplicate")
    }

    @Test func telegram() async throws {
        let literal =
            #"{"lastUpdate":41,"pending":[{"chat":{"channel":"-100200","dm":false,"mentioned":true,"messenger":"telegram","thread":"-100200\/7","user":"42","userName":"alice"},"files":[{"contentType":"image\/png","fileID":"F1","filename":"a.png","size":3}],"id":"-100200:5","messageID":5,"text":"hello"}],"seen":["-100200:5","-100200:4"]}"#
        var record = try await StateFixture.roundTrip(TelegramPlugin.InboxRecord.self, literal, as: "inbox.json")
        #expect(record.cursor == 41)
        #expect(record.pending.map(\.id) == ["-100200:5"])
        #expect(record.pending.first?.messageID == 5)
        #expect(record.pending.first?.files.first?.fileID == "F1")
        let againTake = record.take(
            TelegramPlugin.PendingMessage(id: "-100200:4", chat: record.pending[0].chat, text: "again", files: [], messageID: 4))
        #expect(!againTake, "a message taken in before is a duplicate")
    }

    @Test func slack() async throws {
        let literal =
            #"{"events":["Ev1"],"messages":["C1:1700000000.000200","cmd:T1"],"pending":[{"chat":{"channel":"C1","dm":false,"mentioned":true,"messenger":"slack","thread":"1700000000.000100","user":"U1","userName":"alice"},"files":[{"id":"F1","mimetype":"image\/png","name":"a.png","size":3,"url":"https:\/\/files.slack.com\/a.png"}],"id":"C1:1700000000.000200","text":"hello","ts":"1700000000.000200"}]}"#
        var record = try await StateFixture.roundTrip(SlackPlugin.InboxRecord.self, literal, as: "inbox.json")
        #expect(record.pending.map(\.id) == ["C1:1700000000.000200"])
        #expect(record.pending.first?.ts == "1700000000.000200")
        #expect(record.pending.first?.files.first?.url == "https://files.slack.com/a.png")
        let againSee = record.see(event: "Ev1")
        #expect(!againSee, "a message taken in before is a duplicate")
        let againTake = record.take(SlackPlugin.PendingMessage(id: "cmd:T1", chat: record.pending[0].chat, text: "again", files: [], ts: nil))
        #expect(!againTake, "a message taken in before is a duplicate")
    }
}
