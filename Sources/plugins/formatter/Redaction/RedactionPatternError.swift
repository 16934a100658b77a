/// A `redact` pattern from config that cannot be used.
struct RedactionPatternError: Error, CustomStringConvertible {
    let index: Int
    let pattern: String
    let reason: String

    var description: String { "redact[\(index)] \"\(pattern)\" is not a usable pattern: \(reason)" }
}
