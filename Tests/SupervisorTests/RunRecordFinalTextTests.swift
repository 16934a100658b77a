import PiRelaySDK
import Testing

@testable import Supervisor

/// Deltas do not always rebuild a block (the pi extension spec's §11 trap 18; pi-rpc's
/// message_update): the run's text is what `message_end` says, not what the deltas added up to.
@Suite struct RunRecordFinalTextTests {
    let t0 = ContinuousClock.now

    func feed(_ rec: inout RunRecorder, _ lines: [String]) throws {
        for line in lines { _ = rec.apply(try PiEventReader().read(line), at: t0) }
    }

    static func delta(_ text: String) -> String {
        #"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"\#(text)"}}"#
    }

    static func end(_ text: String) -> String {
        #"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"\#(text)"}],"stopReason":"stop"}}"#
    }

    static let start = #"{"type":"message_start","message":{"role":"assistant","content":[]}}"#

    @Test func theFinalTextReplacesDeltasThatMissedAPiece() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        try feed(&rec, [#"{"type":"agent_start"}"#, Self.start, Self.delta("Hel"), Self.delta("world"), Self.end("Hello world")])
        #expect(rec.run?.text == "Hello world")
    }

    @Test func aMessageWithoutDeltasStillShowsItsText() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        try feed(&rec, [#"{"type":"agent_start"}"#, Self.start, Self.end("All at once")])
        #expect(rec.run?.text == "All at once")
    }

    @Test func deltasThatRebuildTheTextChangeNothing() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        try feed(&rec, [#"{"type":"agent_start"}"#, Self.start, Self.delta("Hi "), Self.delta("there")])
        let revision = rec.run?.revision
        try feed(&rec, [Self.end("Hi there")])
        #expect(rec.run?.text == "Hi there")
        #expect(rec.run?.revision == revision, "no re-render for a final the chat already shows")
    }
}
