/// `pi:` — how pi-relayd starts the pi coding agent for each session.
package struct PiSettings: Sendable, Equatable {
    /// `pi.command`: the pi executable; a bare name is looked up in PATH.
    package var command = "pi"
    /// `pi.args`: extra arguments after `--mode rpc`.
    package var args: [String] = []
    /// `pi.env`: variables added to every pi child's environment.
    package var env: [String: String] = [:]
    /// `pi.agentDir`: when set, children get `PI_CODING_AGENT_DIR` pointing here.
    package var agentDir: String?
    /// `pi.startTimeoutSeconds`: how long a new pi child may take to answer its first command.
    package var startTimeout: Duration = .seconds(20)
    /// `pi.dialogTimeoutSeconds`: how long a dialog without its own timeout waits for a chat
    /// answer; nil (0 in the file) means forever.
    package var dialogTimeout: Duration?
    /// `pi.extension`: pass pi-relayd's extension to every pi child (`-e PATH`), for approval
    /// gates and the agent tools.
    package var loadsExtension = true

    /// The full argument list for a pi child; `sessionFile` resumes that session.
    package func arguments(sessionFile: String?) -> [String] {
        // An absolute path: a bare id prefix can make pi ask a y/N question on stdout.
        ["--mode", "rpc"] + (sessionFile.map { ["--session", $0] } ?? []) + args
    }

    /// What to add to a pi child's environment: `env`, plus `PI_CODING_AGENT_DIR` from `agentDir`
    /// (which wins, being the more specific setting).
    package var childEnvironment: [String: String] {
        var result = env
        if let agentDir { result["PI_CODING_AGENT_DIR"] = agentDir }
        // A globally installed pi-relayd extension loads in our children too; this tells it to
        // stay passive there instead of attaching a second session (docs/EXTENSION.md).
        result["PI_RELAYD_CHILD"] = "1"
        return result
    }
}
