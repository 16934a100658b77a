import DiscordPayloads
import PiRelaySDK
import Testing

@testable import DiscordPlugin

@Suite("Gateway payloads")
struct GatewayDecodingTests {
    @Test func helloAndDispatchFramesDecode() throws {
        let hello = try GatewayPayload.decode(#"{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}"#)
        #expect(hello.op == 10)
        #expect(hello.data["heartbeat_interval"]?.intValue == 41250)
        #expect(hello.sequence == nil && hello.eventName == nil)
        let dispatch = try GatewayPayload.decode(#"{"op":0,"d":{},"s":42,"t":"RESUMED"}"#)
        #expect(dispatch.sequence == 42)
        #expect(dispatch.eventName == "RESUMED")
        #expect(throws: (any Error).self) { try GatewayPayload.decode(#"{"d":1}"#) }
        #expect(throws: (any Error).self) { try GatewayPayload.decode("not json") }
    }

    @Test func sentFramesCarryOnlyOpAndD() throws {
        let text = GatewayPayload.encode(.heartbeat, 7)
        #expect(try JSONValue.parse(text) == ["op": 1, "d": 7])
        #expect(try JSONValue.parse(GatewayPayload.encode(.heartbeat, .null)) == ["op": 1, "d": .null])
    }

    @Test func readyGivesSessionResumeURLBotAndApplication() throws {
        let d = try JSONValue.parse(
            """
            {"v":10,"user":{"id":"130","username":"relay","bot":true},"session_id":"abc","resume_gateway_url":"wss://r.example",
             "guilds":[{"id":"110","unavailable":true}],"application":{"id":"131","flags":0}}
            """)
        guard case .ready(let info)? = GatewayEvent.decode(name: "READY", data: d) else { throw Unexpected() }
        #expect(info.sessionID == "abc")
        #expect(info.resumeURL == "wss://r.example")
        #expect(info.botUserID == "130")
        #expect(info.applicationID == "131")
        #expect(info.guildIDs == ["110"])
    }

    @Test func guildMessageWithMentionAndAttachment() throws {
        let d = try JSONValue.parse(
            """
            {"id":"900","channel_id":"120","guild_id":"110","channel_type":0,"type":0,"content":"<@130> fix it",
             "author":{"id":"140","username":"alice","global_name":"Alice A"},"mentions":[{"id":"130","username":"relay"}],
             "attachments":[{"id":"1","filename":"log.txt","size":12,"url":"https://cdn.example/a/log.txt?ex=1","content_type":"text/plain"}]}
            """)
        guard case .messageCreate(let m)? = GatewayEvent.decode(name: "MESSAGE_CREATE", data: d) else { throw Unexpected() }
        #expect(m.authorName == "Alice A")
        #expect(!m.isDM)
        #expect(m.mentionIDs == ["130"])
        #expect(m.attachments == [.init(url: "https://cdn.example/a/log.txt?ex=1", filename: "log.txt", size: 12, contentType: "text/plain")])
    }

    @Test func dmMessageHasNoGuild() throws {
        let d = try JSONValue.parse(#"{"id":"1","channel_id":"5","type":0,"content":"hi","author":{"id":"140","username":"alice"},"channel_type":1}"#)
        guard case .messageCreate(let m)? = GatewayEvent.decode(name: "MESSAGE_CREATE", data: d) else { throw Unexpected() }
        #expect(m.isDM)
        #expect(m.authorName == "alice")
    }

    @Test func slashCommandInAGuildThread() throws {
        let d = try JSONValue.parse(
            """
            {"id":"77","token":"tok","application_id":"131","type":2,"guild_id":"110","channel_id":"555",
             "channel":{"id":"555","type":11,"parent_id":"120"},
             "member":{"user":{"id":"140","username":"alice"}},
             "data":{"name":"to","type":1,"options":[{"name":"session","type":3,"value":"api"},{"name":"text","type":3,"value":"go"}]}}
            """)
        guard case .interactionCreate(let i)? = GatewayEvent.decode(name: "INTERACTION_CREATE", data: d) else { throw Unexpected() }
        #expect(i.commandName == "to")
        #expect(i.options == ["session": "api", "text": "go"])
        #expect(i.userID == "140")
        let chat = Chat(i)
        #expect(chat.channel == "120")
        #expect(chat.thread == "555")
        #expect(chat.postChannel == "555")
    }

    @Test func buttonClickInADM() throws {
        let d = try JSONValue.parse(
            """
            {"id":"78","token":"tok","application_id":"131","type":3,"channel_id":"5","channel":{"id":"5","type":1},
             "user":{"id":"140","username":"alice"},"message":{"id":"600"},
             "data":{"custom_id":"use:ab12","component_type":2}}
            """)
        guard case .interactionCreate(let i)? = GatewayEvent.decode(name: "INTERACTION_CREATE", data: d) else { throw Unexpected() }
        #expect(i.isDM)
        #expect(i.customID == "use:ab12")
        #expect(i.messageID == "600")
        #expect(Chat(i).json["dm"] == true)
        #expect(Chat(i).json["guild"] == nil)
    }

    @Test func threadsFromThreadCreateAndGuildCreate() throws {
        let thread = try JSONValue.parse(#"{"id":"555","parent_id":"120","guild_id":"110","type":11,"newly_created":true}"#)
        guard case .threads(let list)? = GatewayEvent.decode(name: "THREAD_CREATE", data: thread) else { throw Unexpected() }
        #expect(list == [ThreadInfo(id: "555", parentID: "120", guildID: "110")])
        let guild = try JSONValue.parse(#"{"id":"110","threads":[{"id":"556","parent_id":"121","type":12},{"id":"x","type":0,"parent_id":"1"}]}"#)
        guard case .threads(let active)? = GatewayEvent.decode(name: "GUILD_CREATE", data: guild) else { throw Unexpected() }
        #expect(active.map(\.id) == ["556"])
        #expect(GatewayEvent.decode(name: "MESSAGE_CREATE", data: ["id": "1"]) == nil)
    }

    @Test(
        arguments: [
            (nil, GatewayCloseAction.resume), (4000, .resume), (4008, .resume), (1006, .resume),
            (4007, .reidentify), (4009, .reidentify), (1000, .reidentify),
        ] as [(Int?, GatewayCloseAction)])
    func closeCodes(code: Int?, action: GatewayCloseAction) {
        #expect(GatewayCloseAction.after(closeCode: code) == action)
    }

    @Test(arguments: [4004, 4010, 4011, 4012, 4013, 4014])
    func fatalCloseCodesSayWhatToFix(code: Int) {
        guard case .fatal(let why) = GatewayCloseAction.after(closeCode: code) else { Issue.record("\(code) must be fatal"); return }
        #expect(why.contains("\(code)"))
        if code == 4004 { #expect(why.contains("DISCORD_BOT_TOKEN")) }
        if code == 4014 { #expect(why.contains("Developer Portal") && why.contains("MESSAGE CONTENT")) }
    }

    @Test func intentsAreTheFourTheRelayNeeds() {
        #expect(Intents.relay == 37377)
    }

    @Test func gatewayURLsGetVersionAndEncoding() {
        #expect(Gateway.withQuery("wss://gateway.discord.gg") == "wss://gateway.discord.gg/?v=10&encoding=json")
        #expect(Gateway.withQuery("ws://127.0.0.1:9/resume-gw/") == "ws://127.0.0.1:9/resume-gw/?v=10&encoding=json")
        #expect(Gateway.withQuery("wss://x.example/?v=9") == "wss://x.example/?v=10&encoding=json")
    }

    @Test func presenceIsWatching() {
        let p = Gateway.presence("api (claude)")
        #expect(p["activities"] == [["name": "api (claude)", "type": 3]])
        #expect(p["status"] == "online")
        #expect(Gateway.presence("")["activities"] == [])
    }

    struct Unexpected: Error {}
}
