import PiRelaySDK

/// The answer to `attachments.inbound`: `{images, appendix, notes}`.
struct InboundResult: Sendable, Equatable {
    /// A protocol line may be at most 8 MiB; what does not fit is left out, images first, rather
    /// than producing a response the supervisor would have to drop. 64 KiB covers the envelope.
    static let defaultBudget = 8 * 1024 * 1024 - 64 * 1024

    private(set) var outcomes: [ItemOutcome]

    init(_ outcomes: [ItemOutcome], budget: Int = defaultBudget) {
        self.outcomes = outcomes
        fit(budget)
    }

    var images: [JSONValue] {
        outcomes.compactMap {
            guard case .image(_, let format, _, let base64) = $0 else { return nil }
            return ["type": "image", "data": .string(base64), "mimeType": .string(format.mimeType)]
        }
    }

    var appendix: String { outcomes.map(\.appendixPart).filter { !$0.isEmpty }.joined(separator: "\n\n") }
    var notes: [String] { outcomes.compactMap(\.note) }
    var transcripts: [String] {
        outcomes.compactMap { if case .spoken(_, let transcript) = $0 { transcript } else { nil } }
    }

    var json: JSONValue {
        var object: JSONValue = ["images": .array(images), "appendix": .string(appendix), "notes": .array(notes.map { .string($0) })]
        if !transcripts.isEmpty { object["transcripts"] = .array(transcripts.map { .string($0) }) }
        return object
    }

    private mutating func fit(_ budget: Int) {
        var total = outcomes.reduce(0) { $0 + Self.cost($1) }
        while total > budget {
            // The largest image goes first; only when no image is left does the largest text block.
            let images = outcomes.indices.filter { if case .image = outcomes[$0] { true } else { false } }
            let texts = outcomes.indices.filter { if case .text = outcomes[$0] { true } else { false } }
            let candidates = images.isEmpty ? texts : images
            guard let victim = candidates.max(by: { Self.cost(outcomes[$0]) < Self.cost(outcomes[$1]) }) else { return }
            let replacement: ItemOutcome
            switch outcomes[victim] {
            case .image(let name, _, let size, _):
                replacement = .imageNotSent(name, size: size, "too much image data for one message; send it on its own")
            case .text(let name, let size, _):
                replacement = .notIncluded(name, size: size, "too much text for one message; send it on its own")
            case .omitted, .spoken:
                return
            }
            total += Self.cost(replacement) - Self.cost(outcomes[victim])
            outcomes[victim] = replacement
        }
    }

    /// Bytes this outcome adds to the serialized response, counting JSON escapes.
    private static func cost(_ outcome: ItemOutcome) -> Int {
        var size = JSONValue.string(outcome.appendixPart).serializedBytes().count + 2
        if let note = outcome.note { size += JSONValue.string(note).serializedBytes().count + 1 }
        if case .image(_, _, _, let base64) = outcome { size += base64.utf8.count + 64 }
        return size
    }
}
