import PiRelaySDK

/// A file that goes with the final messages (`files:[{filename,text}]`).
struct AttachedFile: Sendable, Equatable {
    let filename: String
    let text: String

    var json: JSONValue { ["filename": .string(filename), "text": .string(text)] }
}
