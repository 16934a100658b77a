import PiRelaySDK

/// One gate: calls of `tools` that match any of its conditions wait for a person's approval.
/// The extension evaluates rules where the call happens (docs/CONFIG.md, "approvals"); a rule
/// with no condition gates every call of its tools.
package struct ApprovalRule: Sendable, Equatable {
    package var name: String
    /// Tool names as pi calls them: `bash`, `write`, `edit`, `read`, or an extension's tool.
    package var tools: [String]
    /// A JavaScript regular expression searched for in a bash call's `command`.
    package var command: String?
    /// Globs on a call's `path`: `~` is the home folder, `**` crosses folders, and a glob
    /// without a `/` matches the file's name in any folder.
    package var paths: [String] = []
    /// The call's `path` resolves outside the session's folder.
    package var outsideCwd = false

    /// What the extension gets (in the attach result or `PI_RELAYD_APPROVALS`).
    package var json: JSONValue {
        var object: JSONValue = ["name": .string(name), "tools": .array(tools.map { .string($0) })]
        if let command { object["command"] = .string(command) }
        if !paths.isEmpty { object["paths"] = .array(paths.map { .string($0) }) }
        if outsideCwd { object["outsideCwd"] = true }
        return object
    }
}
