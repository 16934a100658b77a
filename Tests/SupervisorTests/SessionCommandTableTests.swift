import PiRelaySDK
import Testing

@testable import Supervisor

/// Which outstanding command an id-less failure belongs to, beyond PiCommandTableTests.
@Suite struct SessionCommandTableTests {
    func response(_ line: String) throws -> PiResponse {
        try #require(try PiEventReader().read(line).response)
    }

    @Test func anIdlessFailureSkipsOlderCommandsThatCannotThrow() throws {
        var t = PiCommandTable()
        // An abort that pi answers only once a dialog closes, then a set_model that throws.
        t.sent(id: "r1", type: "abort")
        t.sent(id: "r2", type: "get_state")
        t.sent(id: "r3", type: "set_model")
        let m = t.received(
            try response(#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: No API key for openai/gpt-5.4"}"#))
        #expect(m == .settles(id: "r3", type: "set_model"))
        #expect(t.outstanding.keys.sorted() == ["r1", "r2"])
    }

    @Test func withoutACommandThatCanThrowTheOldestNonPromptTakesIt() throws {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "prompt")
        t.sent(id: "r2", type: "new_session")
        let m = t.received(try response(#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: EACCES"}"#))
        #expect(m == .settles(id: "r2", type: "new_session"))
    }

    @Test func theCommandsThatCanThrowAreThoseTheSpecNames() {
        // spec §2, quirk 2: handlers that throw inside pi.
        for type in ["set_model", "cycle_model", "compact", "steer", "follow_up", "fork", "switch_session", "export_html"] {
            #expect(PiCommandTable.mayFailWithoutID.contains(type), "\(type)")
        }
        for type in ["prompt", "abort", "get_state", "get_session_stats", "get_last_assistant_text", "set_thinking_level"] {
            #expect(!PiCommandTable.mayFailWithoutID.contains(type), "\(type)")
        }
    }
}
