import Foundation

/// Builds the pi command line and environment for a session, from the `pi:` config section.
struct PiLauncher: Sendable {
    var command: String
    var args: [String]
    var env: [String: String]
    var agentDir: String?
    var startTimeout: Duration
    var dialogTimeout: Duration?
    var busyBehavior: String

    func spec(cwd: String, sessionFile: String?) -> ChildSpec {
        var arguments = ["--mode", "rpc"]
        // An absolute path: a bare id prefix can make pi ask a y/N question on stdout.
        if let sessionFile { arguments += ["--session", sessionFile] }
        arguments += args
        var environment = env
        if let agentDir { environment["PI_CODING_AGENT_DIR"] = agentDir }
        return ChildSpec(executable: command, arguments: arguments, environment: environment,
                         workingDirectory: cwd, maxLineBytes: 64 << 20)
    }
}
