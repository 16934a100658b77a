/// How to start one child (a plugin or a pi session).
package struct ChildSpec: Sendable {
    /// An absolute path, or a bare name looked up in PATH.
    package var executable: String
    package var arguments: [String] = []
    package var environment: [String: String] = [:]
    package var workingDirectory: String
    package var maxLineBytes: Int = 8 << 20
    /// Its stdout is a stream that may be read in gathered rounds when busy (pi's events), not
    /// replies someone waits on (a plugin's).
    package var pacedOutput = false
    /// Variables of the daemon's own environment the child does not get (the plugins' secrets,
    /// for a pi session).
    package var withheld: Set<String> = []

    package init(
        executable: String, arguments: [String] = [], environment: [String: String] = [:], workingDirectory: String,
        maxLineBytes: Int = 8 << 20, pacedOutput: Bool = false
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.maxLineBytes = maxLineBytes
        self.pacedOutput = pacedOutput
    }
}
