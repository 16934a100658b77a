import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `pi-relay-formatter`, run as pi-relayd runs it.
@Suite(.serialized) struct ExecutableTests {
    @Test func answersAFinalRequestAfterTheHandshake() throws {
        let path = try PluginProcess.builtProduct("pi-relay-formatter")
        let plugin = try PluginProcess(path: path, environment: ["PI_RELAY_PLUGIN": "1", "PI_RELAY_PROTOCOL": "1", "PATH": "/usr/bin:/bin"])
        let hello = try JSONValue.parse(try #require(try plugin.readLine()))
        #expect(hello["type"] == "hello")
        #expect(hello["protocol"] == 1)
        #expect(hello["name"] == "formatter")
        #expect(hello["roles"] == ["formatter"])

        let state = try PluginProcess.temporaryDirectory()
        defer { rmdir(state) }
        let welcome: JSONValue = [
            "type": "welcome", "protocol": 1, "plugin": "formatter", "config": ["maxChunks": 2],
            "stateDir": .string(state), "spoolDir": .string(state), "home": .string(state),
            "sessions": [], "bindings": [],
        ]
        try plugin.writeLine(welcome.serialized())
        let run = RunFixture.run([
            RunFixture.text("Done: the key was sk-ant-api03-\(String(repeating: "k3Y", count: 20)).\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
            RunFixture.tools([RunFixture.call("bash", ["command": "swift test"], isError: true, output: "Command exited with code 1")]),
        ])
        let request: JSONValue = ["type": "request", "id": "r1", "method": "format.final", "params": ["run": run, "limit": 2000]]
        try plugin.writeLine(request.serialized())
        let response = try JSONValue.parse(try #require(try plugin.readLine()))
        #expect(response["type"] == "response")
        #expect(response["id"] == "r1")
        let messages = response["result"]?["messages"]?.arrayValue ?? []
        #expect(messages == [.string("Done: the key was sk-ant-[REDACTED].\n\n```\na | b\n--+--\n1 | 2\n```\n\n❌ `$ swift test` (exit 1)")])
        #expect(response["result"]?["files"] == [])

        try plugin.writeLine(#"{"type":"request","id":"r2","method":"format.unknown","params":{}}"#)
        let refused = try JSONValue.parse(try #require(try plugin.readLine()))
        #expect(refused["error"]?["code"] == "method_not_found")

        plugin.closeInput()
        #expect(try plugin.waitForExit() == 0)
    }

    @Test func startedByHandItExplainsItselfAndExits64() throws {
        let path = try PluginProcess.builtProduct("pi-relay-formatter")
        let plugin = try PluginProcess(path: path, environment: ["PATH": "/usr/bin:/bin"])
        #expect(try plugin.waitForExit() == 64)
        #expect(plugin.standardError().contains("pi-relayd plugin"))
    }

    @Test func aBadConfigExits78() throws {
        let path = try PluginProcess.builtProduct("pi-relay-formatter")
        let plugin = try PluginProcess(path: path, environment: ["PI_RELAY_PLUGIN": "1", "PATH": "/usr/bin:/bin"])
        _ = try plugin.readLine()
        let state = try PluginProcess.temporaryDirectory()
        defer { rmdir(state) }
        let welcome: JSONValue = [
            "type": "welcome", "protocol": 1, "plugin": "formatter", "config": ["redact": ["(unclosed"]],
            "stateDir": .string(state), "spoolDir": .string(state),
        ]
        try plugin.writeLine(welcome.serialized())
        #expect(try plugin.waitForExit() == 78)
        #expect(plugin.standardError().contains("redact[0]"))
    }
}
