import PiRelaySDK

/// What pi says of the session it runs: the session file, the model and whether it takes images,
/// the thinking level. From `get_state`'s answer, and for a terminal session from the extension's
/// registration and its news; what a report leaves out stays as it was. Pure.
package struct PiReport: Sendable, Equatable {
    package var sessionFile: String?
    package var model: String?
    /// Whether the model takes images (its `input` names `image`); nil when pi has not said,
    /// and then images are sent.
    package var modelTakesImages: Bool?
    package var thinkingLevel: String?

    /// `get_state`'s `data` (pi-rpc spec: `model` has `provider`, `id` and `input`).
    package mutating func take(state data: JSONValue) {
        if let file = data["sessionFile"]?.stringValue { sessionFile = file }
        if let reported = data["model"], let id = reported["id"]?.stringValue {
            model = (reported["provider"]?.stringValue.map { $0 + "/" } ?? "") + id
            modelTakesImages = reported["input"]?.arrayValue.map { $0.contains(.string("image")) }
        }
        if let level = data["thinkingLevel"]?.stringValue { thinkingLevel = level }
    }

    /// A terminal's report: a model named comes with what it takes.
    package mutating func take(sessionFile file: String?, model name: String?, takesImages: Bool?, thinkingLevel level: String?) {
        if let file { sessionFile = file }
        if let name {
            model = name
            modelTakesImages = takesImages
        }
        if let level { thinkingLevel = level }
    }
}
