import PiRelaySDK
import Testing

@testable import Supervisor

/// What pi says of a session, from get_state (pi-rpc spec: `model` with `provider`, `id`,
/// `input`) and from a terminal's reports; what a report leaves out stays.
@Suite struct PiReportTests {
    @Test func getStateNamesTheModelWithItsProviderAndWhatItTakes() throws {
        var reported = PiReport(sessionFile: "/old.jsonl", model: "old/model")
        reported.take(
            state: try JSONValue.parse(
                #"{"model":{"provider":"anthropic","id":"claude-sonnet-4-5","input":["text","image"]},"thinkingLevel":"high"}"#))
        #expect(reported == PiReport(sessionFile: "/old.jsonl", model: "anthropic/claude-sonnet-4-5", modelTakesImages: true, thinkingLevel: "high"))
        reported.take(state: try JSONValue.parse(#"{"sessionFile":"/new.jsonl","model":{"id":"local","input":["text"]}}"#))
        #expect(reported == PiReport(sessionFile: "/new.jsonl", model: "local", modelTakesImages: false, thinkingLevel: "high"))
    }

    @Test func aTerminalsReportChangesOnlyWhatItNames() {
        var reported = PiReport(sessionFile: "/a.jsonl", model: "m1", modelTakesImages: true, thinkingLevel: "low")
        reported.take(sessionFile: nil, model: nil, takesImages: false, thinkingLevel: nil)
        #expect(reported.modelTakesImages == true, "what the model takes comes with a model")
        reported.take(sessionFile: "/b.jsonl", model: "m2", takesImages: nil, thinkingLevel: "off")
        #expect(reported == PiReport(sessionFile: "/b.jsonl", model: "m2", modelTakesImages: nil, thinkingLevel: "off"))
    }
}
