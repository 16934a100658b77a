/// How to start one child (a plugin or a pi session).
struct ChildSpec: Sendable {
    /// An absolute path, or a bare name looked up in PATH.
    var executable: String
    var arguments: [String] = []
    var environment: [String: String] = [:]
    var workingDirectory: String
    var maxLineBytes: Int = 8 << 20
    /// Its stdout is a stream that may be read in gathered rounds when busy (pi's events), not
    /// replies someone waits on (a plugin's).
    var pacedOutput = false
}
