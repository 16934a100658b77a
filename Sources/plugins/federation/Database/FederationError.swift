/// What the federation plugin refuses or could not do, worded for the owner's log and
/// `pi-relayd status`. No case carries the database URL or its password.
public enum FederationError: Error, Equatable, CustomStringConvertible {
    /// The database was migrated by a newer plugin.
    case schemaTooNew(database: Int, plugin: Int)
    /// Another daemon runs under this machine name (its heartbeat is fresh).
    case machineTaken(name: String, heardSecondsAgo: Double)
    /// This daemon's name was taken over while it was away (its heartbeat went stale).
    case machineLost(name: String)
    /// The database did not answer or refused; `what` says which step.
    case database(what: String, detail: String)

    public var description: String {
        switch self {
        case .schemaTooNew(let database, let plugin):
            "the federation database's schema is version \(database), newer than this pi-relay-federation knows (\(plugin)): upgrade pi-relayd on this machine"
        case .machineTaken(let name, let ago):
            "another daemon runs as machine \"\(name)\" (heard from \(Int(ago.rounded())) s ago): two daemons with the same machine name are refused; give this one another machine: in config.yaml"
        case .machineLost(let name):
            "machine \"\(name)\" was taken over by another daemon while this one was not heard from"
        case .database(let what, let detail):
            "federation database: \(what): \(detail)"
        }
    }

    /// A database error as the log may show it: the server's message or why the connection
    /// failed, never the statement's parameters or the connection's settings.
    static func database(_ what: String, _ error: any Error) -> FederationError {
        if let error = error as? FederationError { return error }
        if let error = error as? WireError { return .database(what: what, detail: String(error.description.prefix(300))) }
        return .database(what: what, detail: "\(type(of: error))")
    }
}
