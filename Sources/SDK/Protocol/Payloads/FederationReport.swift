/// `federation.machines`, a notification (federation → supervisor): the other machines and
/// their sessions, sent when anything in it changed, and whether the database answers.
public struct FederationReport: Sendable, Equatable {
    /// The other machines, by name; this daemon's own machine is not among them.
    public var machines: [MachineSummary]
    /// When the database stopped answering (ISO 8601); nil while it answers.
    public var unreachableSince: String?
    /// Why the federation cannot work as configured (a second daemon with this machine's
    /// name, a schema newer than the plugin), or, with `unreachableSince`, why the database does
    /// not answer (as a connection made to find out says it); nil otherwise.
    public var problem: String?
    /// Every machine's revocations of users of the messengers they share, this one's included,
    /// in the database's order.
    public var revocations: [Revocation]

    /// A report.
    public init(machines: [MachineSummary] = [], unreachableSince: String? = nil, problem: String? = nil, revocations: [Revocation] = []) {
        self.machines = machines
        self.unreachableSince = unreachableSince
        self.problem = problem
        self.revocations = revocations
    }
}

extension FederationReport: WirePayload {
    /// Reads it; everything may be left out.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "federation.machines")
        self.init(
            machines: fields.list("machines", of: MachineSummary.self), unreachableSince: fields.optionalString("unreachableSince"),
            problem: fields.optionalString("problem"), revocations: fields.list("revocations", of: Revocation.self))
    }

    /// `{machines, unreachableSince?, problem?, revocations?}`.
    public var json: JSONValue {
        var object: JSONValue = ["machines": machines.json]
        if let unreachableSince { object["unreachableSince"] = .string(unreachableSince) }
        if let problem { object["problem"] = .string(problem) }
        if !revocations.isEmpty { object["revocations"] = revocations.json }
        return object
    }
}
