import PiRelaySDK

/// What became of one attachment: an image for the model, a text block for the prompt, or a line
/// saying why it was left out (and a note telling the user the same).
enum ItemOutcome: Sendable, Equatable {
    case image(name: String, format: ImageFormat, size: Int, base64: String)
    case text(name: String, size: Int, block: String)
    case omitted(line: String, note: String)
    /// A voice note, transcribed: its words join the prompt's text, not the appendix.
    case spoken(name: String, transcript: String)

    /// The part of the prompt appendix for this attachment. An image gets a line too, so the model
    /// can tell which image is which file.
    var appendixPart: String {
        switch self {
        case .image(let name, let format, let size, _):
            return "[attachment \(name): attached as an image (\(format.displayName), \(ByteCount.describe(size)))]"
        case .text(_, _, let block): return block
        case .omitted(let line, _): return line
        case .spoken: return ""
        }
    }

    var note: String? {
        if case .omitted(_, let note) = self { return note }
        return nil
    }

    static func notIncluded(_ name: String, size: Int?, _ reason: String) -> ItemOutcome {
        .omitted(line: "[attachment \(label(name, size)): not included: \(reason)]", note: "\(name) was not included: \(reason)")
    }

    static func notTranscribed(_ name: String, _ reason: String) -> ItemOutcome {
        .omitted(line: "[voice note \(name): not transcribed: \(reason)]", note: "The voice note was not transcribed: \(reason)")
    }

    static func imageNotSent(_ name: String, size: Int?, _ reason: String) -> ItemOutcome {
        .omitted(line: "[attachment \(label(name, size)): image not sent: \(reason)]", note: "\(name) was not sent: \(reason)")
    }

    private static func label(_ name: String, _ size: Int?) -> String {
        size.map { "\(name) (\(ByteCount.describe($0)))" } ?? name
    }
}
