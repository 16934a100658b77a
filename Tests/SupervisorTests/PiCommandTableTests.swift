import PiRelaySDK
import Testing

@testable import Supervisor

/// pi's response quirks (specs/pi-rpc.md §2): out-of-order answers, id-less errors, double
/// prompt responses.
@Suite struct PiCommandTableTests {
    func response(_ line: String) throws -> PiResponse {
        try #require(try PiEventReader().read(line).response)
    }

    @Test func correlatesOutOfOrderResponsesByID() throws {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "compact")
        t.sent(id: "r2", type: "get_state")
        #expect(
            t.received(try response(#"{"id":"r2","type":"response","command":"get_state","success":true,"data":{}}"#))
                == .settles(id: "r2", type: "get_state"))
        #expect(t.received(try response(#"{"id":"r1","type":"response","command":"compact","success":true}"#)) == .settles(id: "r1", type: "compact"))
        #expect(t.outstanding.isEmpty)
    }

    @Test func idlessParseErrorGoesToOldestNonPrompt() throws {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "prompt")
        t.sent(id: "r2", type: "set_model")
        t.sent(id: "r3", type: "compact")
        let m = t.received(try response(#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: No API key"}"#))
        #expect(m == .settles(id: "r2", type: "set_model"))
        #expect(t.outstanding.keys.sorted() == ["r1", "r3"])
    }

    @Test func idlessUnknownCommandMatchesItsType() throws {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "get_state")
        t.sent(id: "r2", type: "frobnicate")
        let m = t.received(try response(#"{"type":"response","command":"frobnicate","success":false,"error":"Unknown command: frobnicate"}"#))
        #expect(m == .settles(id: "r2", type: "frobnicate"))
    }

    @Test func promptAcceptedThenRejectedIsALateRejection() throws {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "prompt")
        #expect(t.received(try response(#"{"id":"r1","type":"response","command":"prompt","success":true}"#)) == .settles(id: "r1", type: "prompt"))
        let late = t.received(try response(#"{"id":"r1","type":"response","command":"prompt","success":false,"error":"No API key"}"#))
        #expect(late == .promptRejectedLate(id: "r1", error: "No API key"))
    }

    @Test func promptRejectedFirstThenSuccessIsADuplicate() throws {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "prompt")
        #expect(
            t.received(try response(#"{"id":"r1","type":"response","command":"prompt","success":false,"error":"Agent is already processing."}"#))
                == .settles(id: "r1", type: "prompt"))
        #expect(t.received(try response(#"{"id":"r1","type":"response","command":"prompt","success":true}"#)) == .duplicate(id: "r1"))
    }

    @Test func extensionUIResponsesAreNeverTracked() {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "extension_ui_response")
        #expect(t.outstanding.isEmpty)
    }

    @Test func drainFailsEverythingOutstanding() {
        var t = PiCommandTable()
        t.sent(id: "r1", type: "prompt")
        t.sent(id: "r2", type: "abort")
        #expect(t.drain() == ["r1", "r2"])
        #expect(t.outstanding.isEmpty)
    }
}
