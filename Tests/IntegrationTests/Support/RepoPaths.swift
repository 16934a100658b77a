/// Files of this repository the tests run: the fake plugins and the Python example plugin.
enum RepoPaths {
    /// The repository root, from this file's path (Tests/IntegrationTests/Support/RepoPaths.swift).
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    static func fake(_ name: String) -> String { root + "/Tests/Fakes/plugins/" + name }

    static var echoExample: String { root + "/examples/echo-plugin.py" }
    static var fileMessengerExample: String { root + "/examples/file-messenger.py" }
}
