import Testing

@testable import PiRelaySDK

/// The commands the daemon sends pi, against the shapes of pi's RPC mode: the pi-rpc spec §2
/// (the command table: each `type` and its extra fields) and §4 (the three dialog answers).
@Suite struct PiCommandTests {
    @Test func everyCommandHasItsWireShape() throws {
        let image: JSONValue = ["type": "image", "data": "aGk=", "mimeType": "image/png"]
        let cases: [(PiCommand, String)] = [
            // §2: `prompt` takes `message`, `images?`, `streamingBehavior?: "steer" | "followUp"`.
            (.prompt(message: "hi", streamingBehavior: .followUp), #"{"type":"prompt","message":"hi","streamingBehavior":"followUp"}"#),
            (
                .prompt(message: "look", images: [image], streamingBehavior: .steer),
                #"{"type":"prompt","message":"look","images":[{"type":"image","data":"aGk=","mimeType":"image/png"}],"streamingBehavior":"steer"}"#
            ),
            // §2: `steer` and `follow_up` take `message`, `images?`.
            (.steer(message: "faster"), #"{"type":"steer","message":"faster"}"#),
            (.followUp(message: "then tests"), #"{"type":"follow_up","message":"then tests"}"#),
            // §2: no extra fields.
            (.abort, #"{"type":"abort"}"#),
            (.newSession, #"{"type":"new_session"}"#),
            (.getState, #"{"type":"get_state"}"#),
            (.getSessionStats, #"{"type":"get_session_stats"}"#),
            (.getLastAssistantText, #"{"type":"get_last_assistant_text"}"#),
            // §2: `compact` takes `customInstructions?`.
            (.compact(), #"{"type":"compact"}"#),
            (.compact(customInstructions: "keep the plan"), #"{"type":"compact","customInstructions":"keep the plan"}"#),
            // §2: `set_model` takes `provider`, `modelId`; `set_thinking_level` `level`; `set_session_name` `name`.
            (
                .setModel(provider: "anthropic", modelID: "claude-sonnet-4-5"),
                #"{"type":"set_model","provider":"anthropic","modelId":"claude-sonnet-4-5"}"#
            ),
            (.setThinkingLevel("high"), #"{"type":"set_thinking_level","level":"high"}"#),
            (.setSessionName("api"), #"{"type":"set_session_name","name":"api"}"#),
            // §4: `value` for select/input/editor, `confirmed` for confirm, `cancelled` for any dialog.
            (.extensionUIResponse(id: "uuid-1", .value("Allow")), #"{"type":"extension_ui_response","id":"uuid-1","value":"Allow"}"#),
            (.extensionUIResponse(id: "uuid-1", .confirmed(false)), #"{"type":"extension_ui_response","id":"uuid-1","confirmed":false}"#),
            (.extensionUIResponse(id: "uuid-1", .cancelled), #"{"type":"extension_ui_response","id":"uuid-1","cancelled":true}"#),
        ]
        for (command, wire) in cases {
            #expect(command.json == (try JSONValue.parse(bytes: Array(wire.utf8))), "\(command.type)")
            #expect(command.json["type"]?.stringValue == command.type)
        }
    }
}
