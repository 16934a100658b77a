import FoundationEssentials
import PiRelaySDK
import Synchronization

/// The other machines of a federation, as the federation plugin last reported them
/// (`federation.machines`): what a chat's `/sessions` lists after this machine's sessions and
/// what `status` says of the database; and which shared messengers take their updates here
/// (`federation.ingress`). Empty until a federation plugin reports.
package final class MachineDirectory: Sendable {
    /// The plugin reports every ten seconds at least; a report older than this is shown with
    /// its age (the plugin is down or restarting).
    package static let staleAfter: Duration = .seconds(30)

    private let last = Mutex<(report: FederationReport, at: ContinuousClock.Instant)?>(nil)
    /// The federation's last word on each shared messenger's ingress.
    private let ingress = Mutex<[String: IngressChange]>([:])

    package init() {}

    package func update(_ report: FederationReport, at now: ContinuousClock.Instant = .now) {
        last.withLock { $0 = (report, now) }
    }

    /// The last report and how old it is; nil before the first.
    package func current(now: ContinuousClock.Instant = .now) -> (report: FederationReport, age: Duration)? {
        last.withLock { $0.map { ($0.report, now - $0.at) } }
    }

    /// Whether the machine `name` last published `user` among those it lets use `messenger`.
    package func allows(_ user: String, messenger: String, on name: String) -> Bool {
        guard let report = current()?.report, let machine = report.machines.first(where: { $0.name == name }) else { return false }
        return Self.published(by: machine, messenger: messenger, in: report).contains(user)
    }

    /// Who the other machines let use each of `messengers`, together. A user revoked after what
    /// a machine has taken in (`MachineSummary.revocationsApplied`) does not count from its list:
    /// it has not dropped them yet, or it is offline and never will.
    package func allowlists(of messengers: Set<String>) -> [String: Set<String>] {
        guard let report = current()?.report else { return [:] }
        var lists: [String: Set<String>] = [:]
        for machine in report.machines {
            for messenger in machine.allowed.keys where messengers.contains(messenger) {
                lists[messenger, default: []].formUnion(Self.published(by: machine, messenger: messenger, in: report))
            }
        }
        return lists
    }

    /// Who `machine` lets use `messenger` as it published it, less the users revoked after the
    /// last revocation it took in.
    private static func published(by machine: MachineSummary, messenger: String, in report: FederationReport) -> Set<String> {
        let revoked = report.revocations.filter { $0.messenger == messenger && ($0.number ?? 0) > machine.revocationsApplied }
        return Set(machine.allowed[messenger] ?? []).subtracting(revoked.map(\.user))
    }

    package func update(_ change: IngressChange) {
        ingress.withLock { $0[change.messenger] = change }
    }

    /// Whether `messenger` takes its updates on this machine now, as the federation last said;
    /// nil before it said anything.
    package func ingress(of messenger: String) -> IngressChange? {
        ingress.withLock { $0[messenger] }
    }

    /// `status`'s line: the database's state or the other machines; nil with no federation.
    package func statusLine(now: ContinuousClock.Instant = .now) -> String? {
        guard let (report, age) = current(now: now) else { return nil }
        let stale = age > Self.staleAfter ? " (reported \(Int(age.inSeconds))s ago: is the federation plugin running?)" : ""
        if let since = report.unreachableSince {
            return "federation: database unreachable since \(since)\(report.problem.map { " (\($0))" } ?? "")\(stale)"
        }
        if let problem = report.problem { return "federation: \(problem)\(stale)" }
        if report.machines.isEmpty { return "federation: no other machine yet\(stale)" }
        let machines = report.machines.map { $0.online ? "\($0.name) online" : "\($0.name) offline since \($0.lastSeen)" }
        let here = ingress.withLock { $0.values.filter(\.active).map(\.messenger).sorted() }
        let taken = here.isEmpty ? "" : "; \(here.joined(separator: ", ")) updates taken here"
        return "federation: \(machines.joined(separator: ", "))\(taken)\(stale)"
    }

    /// What `status --json` carries: the report and its age in seconds; nil with no federation.
    package func json(now: ContinuousClock.Instant = .now) -> JSONValue? {
        guard let (report, age) = current(now: now) else { return nil }
        var object = report.json
        object["reportedSecondsAgo"] = JSONValue(Int(age.inSeconds))
        let shared = ingress.withLock { $0 }
        if !shared.isEmpty { object["ingress"] = .array(shared.keys.sorted().compactMap { shared[$0]?.json }) }
        return object
    }
}
