import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `pi-relay-formatter` asked for Telegram HTML, as pi-relayd asks for a Telegram chat.
@Suite(.serialized) struct TelegramExecutableTests {
    @Test func answersInTelegramHTMLWhenTheRequestNamesTheDialect() throws {
        let path = try PluginProcess.builtProduct("pi-relay-formatter")
        let plugin = try PluginProcess(path: path, environment: ["PI_RELAY_PLUGIN": "1", "PI_RELAY_PROTOCOL": "1", "PATH": "/usr/bin:/bin"])
        _ = try plugin.readLine()
        let state = try PluginProcess.temporaryDirectory()
        defer { rmdir(state) }
        let welcome: JSONValue = [
            "type": "welcome", "protocol": 1, "plugin": "formatter", "config": [:],
            "stateDir": .string(state), "spoolDir": .string(state), "home": .string(state),
            "sessions": [], "bindings": [],
        ]
        try plugin.writeLine(welcome.serialized())
        let run = RunFixture.run([
            RunFixture.tools([RunFixture.call("read", ["path": "Sources/<App>/main.swift"])]),
            RunFixture.text("Fixed the **off-by-one**:\n\n```swift\nfor i in 0..<count where a[i] > b {\n```"),
        ])
        let request: JSONValue = [
            "type": "request", "id": "t1", "method": "format.final", "params": ["run": run, "limit": 4096, "dialect": "telegram-html"],
        ]
        try plugin.writeLine(request.serialized())
        let response = try JSONValue.parse(try #require(try plugin.readLine()))
        let messages = (response["result"]?["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(
            messages == [
                "🔧 read <code>Sources/&lt;App&gt;/main.swift</code>\n\nFixed the <b>off-by-one</b>:\n\n"
                    + "<pre><code class=\"language-swift\">for i in 0..&lt;count where a[i] &gt; b {</code></pre>"
            ])
        for message in messages { try TelegramHTMLChecker.check(message) }
        try plugin.writeLine(
            #"{"type":"request","id":"t2","method":"format.notice","params":{"notice":"error","text":"a<b","dialect":"telegram-html"}}"#)
        let notice = try JSONValue.parse(try #require(try plugin.readLine()))
        #expect(notice["result"]?["text"] == "⚠️ Error: a&lt;b")
        plugin.closeInput()
        #expect(try plugin.waitForExit() == 0)
    }
}
