import Foundation
import Logging
import Testing

@testable import PiRelaySDK

/// A Swift plugin may ask pi-relayd something while it is being made (`init(context:)` has the
/// connection): the answer reaches it. It waited behind the reading loop, which starts once the
/// plugin is made, until its timeout; the plugin then failed to start, and again at each restart.
@Suite(.timeLimit(.minutes(1))) struct PluginConnectionInitTests {
    struct AskingPlugin: Plugin {
        static let manifest = PluginManifest(name: "asking", version: "1", roles: ["test"], summary: "asks while it is made")

        init(context: PluginContext) async throws {
            let status = try await context.connection.request("relay.status", timeout: .seconds(30))
            await context.connection.notify("made", params: ["home": status["home"] ?? .null])
        }

        func handle(_ request: PluginRequest) async throws -> JSONValue { .null }
    }

    @Test func aRequestMadeWhileThePluginIsMadeIsAnswered() async throws {
        let plugin = ServedPlugin(AskingPlugin.self)
        try await plugin.welcome()
        let asked = try await plugin.next()
        #expect(asked["type"] == "request" && asked["method"] == "relay.status", "\(asked)")
        let started = ContinuousClock.now
        plugin.send(["type": "response", "id": asked["id"] ?? .null, "result": ["home": "/h"]])
        let made = try await plugin.next()
        #expect(made["type"] == "notify" && made["method"] == "made" && made["params"]?["home"] == "/h", "\(made)")
        // Waiting behind the reading loop would cost the request its 30 s; a loaded machine, far less.
        #expect(ContinuousClock.now - started < .seconds(20), "the answer waited \(ContinuousClock.now - started)")
        plugin.send(["type": "shutdown"])
        #expect(await plugin.served.value == 0)
    }
}
