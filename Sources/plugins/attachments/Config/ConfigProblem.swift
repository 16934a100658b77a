/// A config value the plugin cannot work with; the plugin exits "not configured" with this message.
struct ConfigProblem: Error, Sendable, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
