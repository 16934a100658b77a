import DiscordPayloads
import PiRelaySDK
import Testing

@testable import DiscordPlugin

/// Inputs the gateway fuzz target (Sources/Fuzz/GatewayPayload) found.
@Suite struct GatewayFuzzRegressionTests {
    /// A whole-number option too large for Int trapped in `Int(_:)` and took the plugin down with
    /// it: one INTERACTION_CREATE with `"value": 31e20` from anyone who can use a slash command.
    @Test func hugeWholeNumberOptionsAreKeptAsText() throws {
        let d = try JSONValue.parse(
            """
            {"id":"5","token":"tok","type":2,"channel_id":"2","user":{"id":"4"},
             "data":{"name":"new","options":[{"name":"n","value":31e20},{"name":"m","value":-1e300},
                                              {"name":"k","value":3},{"name":"f","value":2.5}]}}
            """)
        guard case .interactionCreate(let interaction)? = GatewayEvent.decode(name: "INTERACTION_CREATE", data: d) else {
            Issue.record("not decoded as an interaction")
            return
        }
        #expect(interaction.options["n"] == "3.1e+21")
        #expect(interaction.options["m"] == "-1e+300")
        #expect(interaction.options["k"] == "3")
        #expect(interaction.options["f"] == "2.5")
    }
}
