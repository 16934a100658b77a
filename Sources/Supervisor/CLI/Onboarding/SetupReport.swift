import PiRelaySDK
import Supervisor
import SupervisorIO

/// What `pi-relayd setup` found and did.
struct SetupReport {
    let kind: SetupMessenger
    let identity: MessengerIdentity
    let variable: String
    let file: String
    /// A daemon is running: it read the old .env and needs a restart to use the new token.
    let daemonRunning: Bool
    /// Variables set but empty in this shell: the environment wins over .env, so a daemon
    /// started from here would not see the saved token.
    var setButEmpty: [String] = []

    var json: JSONValue {
        [
            "messenger": .string(kind.name), "bot": identity.json, "saved": ["variable": .string(variable), "file": .string(file)],
            "daemonRunning": .bool(daemonRunning), "setButEmpty": .array(setButEmpty.map { .string($0) }),
        ]
    }

    var text: String {
        var lines = [
            "✓ \(kind.title) accepted the token: bot \(identity.name)"
                + (identity.username.flatMap { $0 == identity.name ? nil : " (@\($0))" } ?? "")
                + ", id \(identity.id)" + (identity.applicationID.map { ", application \($0)" } ?? "")
        ]
        lines += ["", kind.setup.linkLabel, "  \(identity.link)"] + kind.setup.notes
        if !identity.notes.isEmpty || !identity.problems.isEmpty {
            lines += [""] + identity.problems.map { "✗ " + $0 } + identity.notes.map { "• " + $0 }
        }
        lines += ["", "Saved \(variable) in \(file) (mode 600)."]
        for name in setButEmpty {
            lines.append("✗ \(name) is set but empty in this shell, and the environment wins over .env: unset \(name) before pi-relayd start.")
        }
        lines.append(
            daemonRunning
                ? "pi-relayd is running with what .env said before: restart it (pi-relayd restart) to use this token."
                : "Next: pi-relayd start, then pi-relayd pair \(kind.name) to let yourself in.")
        return lines.joined(separator: "\n")
    }
}
