import Supervisor
import SupervisorIO

/// The systemd user unit `pi-relayd service install` writes. Pure: what goes in it is decided by
/// the caller (`ServiceInstallCommand`), so the text is tested as it is.
struct ServiceUnit: Equatable, Sendable {
    static let name = "pi-relayd.service"

    /// The absolute path of the `pi-relayd` to run.
    var executable: String
    /// The service's PATH: systemd gives user services only the system folders, and pi installed
    /// with nvm (or npm's user prefix) lives elsewhere.
    var path: [String]
    /// `PI_RELAYD_HOME` when the installing shell had it set.
    var relaydHome: String?

    var text: String {
        var environment = ["PATH=" + path.joined(separator: ":")]
        if let relaydHome { environment.append("PI_RELAYD_HOME=" + relaydHome) }
        return """
            # Written by `pi-relayd service install`; `pi-relayd service uninstall` removes it.
            [Unit]
            Description=pi-relayd: pi coding-agent sessions in chat apps
            Documentation=man:pi-relayd(1)

            [Service]
            Type=simple
            ExecStart=\(Self.quoted(executable, inCommand: true)) start --foreground
            \(environment.map { "Environment=" + Self.quoted($0, inCommand: false) }.joined(separator: "\n"))
            Restart=on-failure
            RestartSec=5
            # SIGTERM to the daemon alone, which stops its pi sessions and plugins in order; whatever
            # is left when TimeoutStopSec runs out is killed.
            KillMode=mixed
            TimeoutStopSec=30

            [Install]
            WantedBy=default.target

            """
    }

    /// One word as systemd reads it: in double quotes (with `\` and `"` escaped) when it holds
    /// white space or quotes, `%` doubled (specifiers) and, on the command line, `$` doubled
    /// (variable expansion).
    static func quoted(_ word: String, inCommand: Bool) -> String {
        var escaped = word.replacing("%", with: "%%")
        if inCommand { escaped = escaped.replacing("$", with: "$$") }
        guard escaped.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" }) else { return escaped }
        return "\"" + escaped.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}
