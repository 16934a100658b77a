import PiRelaySDK
import Testing

/// Tool results can carry images; only a finished tool's are collected (they are large).
@Suite struct PiToolImageTests {
    static let result = #"{"content":[{"type":"text","text":"done"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"details":{}}"#

    @Test func finishedToolResultsCarryTheirImages() throws {
        let e = try PiEventReader().read(
            #"{"type":"tool_execution_end","toolCallId":"t1","toolName":"read","result":\#(Self.result),"isError":false}"#)
        let t = try #require(e.toolExecution)
        #expect(t.resultText == "done")
        #expect(t.images == [PiImage(mimeType: "image/png", base64: "iVBORw0KGgo=")])
    }

    @Test func updatesAndStartsDoNotCollectImages() throws {
        let e = try PiEventReader().read(
            #"{"type":"tool_execution_update","toolCallId":"t1","toolName":"read","args":{},"partialResult":\#(Self.result)}"#)
        #expect(e.toolExecution?.images == nil)
        #expect(e.toolExecution?.resultText == "done")
    }
}
