import PiRelaySDK

/// Session failures the user sees: each names the session and says what to do.
package enum SessionError {
    package static func notFound(_ name: String) -> RemoteError {
        RemoteError(code: .notFound, message: "no session matches \"\(name)\"; see pi-relayd sessions")
    }

    /// No session named, and not exactly one to take.
    package static func unnamed(count: Int) -> RemoteError {
        RemoteError(
            code: .invalidParams,
            message: count == 0
                ? "there is no session; start one with pi-relayd new DIR" : "name a session (id, name, pid or folder): there are \(count)")
    }

    package static func ambiguous(_ name: String, _ matches: [String]) -> RemoteError {
        RemoteError(code: .invalidParams, message: "\"\(name)\" matches several sessions: \(matches.joined(separator: ", "))")
    }

    package static func piFailed(_ what: String) -> RemoteError {
        RemoteError(code: .piError, message: what)
    }
}
