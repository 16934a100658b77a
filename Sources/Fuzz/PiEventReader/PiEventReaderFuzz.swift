import FuzzDriver
import PiRelaySDK

/// One line of pi stdout through `PiEventReader`, with small caps on the texts it keeps so the
/// truncation paths run too. The reader skips most of a line without building values; it must
/// still accept every line the full parser accepts as an object with a string `type`, and the
/// texts it keeps must be within their caps.
enum PiEventReaderFuzz {
    static func test(_ input: FuzzInput) {
        var input = input
        let reader = PiEventReader(toolResultTextLimit: input.int(in: 0...64), diffLimit: input.int(in: 0...64))
        let line = input.rest()
        let event: PiEvent
        do {
            event = try reader.read(line)
        } catch {
            if let value = try? JSONValue.parse(bytes: line), value["type"]?.stringValue != nil {
                FuzzDriver.require(false, "the reader refused a JSON object with a string type: \(error)")
            }
            return
        }
        // Raw bytes are copied unchanged, so invalid UTF-8 (which pi never writes) may grow when
        // made into a String; the caps are promised for valid input.
        guard String(validating: line, as: UTF8.self) != nil else { return }
        if case .toolExecution(let tool) = event.payload {
            if let text = tool.resultText {
                FuzzDriver.require(
                    text.utf8.count <= reader.toolResultTextLimit,
                    "resultText has \(text.utf8.count) bytes, cap \(reader.toolResultTextLimit)")
            }
            if let diff = tool.diff {
                FuzzDriver.require(diff.utf8.count <= reader.diffLimit, "diff has \(diff.utf8.count) bytes, cap \(reader.diffLimit)")
            }
        }
    }
}
