import FoundationEssentials
import Logging
import PiRelaySDK

/// This machine in the federation: every round it reads its daemon's status (`relay.status`),
/// writes the heartbeat with the sessions, reads the other machines, and tells the daemon what
/// changed (`federation.machines`). A daemon that does not answer gets no heartbeat, so the
/// others see it go offline; a database that does not answer is reported, and the round tries
/// again.
struct MachineRoster: Sendable {
    static let every: Duration = .seconds(2)
    /// A machine with no heartbeat for this long is offline (and its name free to take).
    static let offlineAfter: Duration = .seconds(15)

    let store: FederationStore
    let connection: PluginConnection
    let contact: SupervisorContact
    /// Where the courier and the outgoing side learn this machine's name once joined.
    let joined: JoinedMachine
    let version: String
    /// Asked why, when the database stops answering.
    let probe: DatabaseProbe
    let logger: Logger

    /// What a round knows between rounds.
    struct Progress: Sendable {
        var machine: String?
        /// The daemon's instance the row was joined under.
        var instance: String?
        var joined = false
        var unreachableSince: Date?
        var problem: String?
        var machines: [MachineSummary] = []
        /// Every machine's revocations, dated on this machine's clock when first read, so that
        /// an unchanged table makes an unchanged report.
        var revocations: [Revocation] = []
        var supervisorSilent = false
    }

    /// Old rows are swept about this often (by every machine; the statements are idempotent).
    static let sweepEvery = 300

    func run() async {
        var progress = Progress()
        var pacer = ReportPacer<FederationReport>()
        var rounds = 0
        while !Task.isCancelled {
            await round(&progress)
            rounds += 1
            if progress.joined, rounds % Self.sweepEvery == 1 {
                do { try await store.sweep() } catch { logger.warning("\(error)") }
            }
            let report = FederationReport(
                machines: progress.machines, unreachableSince: progress.unreachableSince.map(ISO8601.string), problem: progress.problem,
                revocations: progress.revocations)
            if !progress.supervisorSilent, pacer.shouldSend(report, now: .now) {
                await connection.notify(.federationMachines, report)
            }
            do { try await Task.sleep(for: Self.every) } catch { break }
        }
        guard progress.joined, let machine = progress.machine, let instance = progress.instance else { return }
        // Unstructured on purpose: this task is cancelled, and a query made from it would be
        // too; leaving is one short statement, awaited here.
        let leave = Task { [store] in try? await store.leave(machine: machine, instance: instance, offlineAfter: Self.offlineAfter) }
        await leave.value
    }

    func round(_ progress: inout Progress) async {
        let status: JSONValue
        do {
            status = try await connection.request(.relayStatus, NoPayload(), timeout: .seconds(5))
        } catch {
            if !progress.supervisorSilent { logger.warning("pi-relayd does not answer relay.status (\(error)): no heartbeat until it does") }
            progress.supervisorSilent = true
            return
        }
        progress.supervisorSilent = false
        contact.heard()
        guard let machine = status["machine"]?.stringValue, !machine.isEmpty else {
            logger.error("relay.status names no machine")
            return
        }
        progress.machine = machine
        // The daemon's, not this plugin's: a restarted plugin is the same daemon and keeps its
        // name at once, while a second daemon under the name is told apart.
        // Its `instance`, drawn at each start: a home and a pid alone can be the same on two hosts
        // (two containers, each with pi-relayd as pid 1). An older daemon says none.
        let instance =
            "\(status["home"]?.stringValue ?? "?")#\(status["pid"]?.intValue ?? 0)" + (status["instance"]?.stringValue.map { "#" + $0 } ?? "")
        progress.instance = instance
        let sessions = status["sessions"] ?? .array([])
        let allowed = status["allowed"] ?? [:]
        let made = (status["revocations"]?.arrayValue ?? []).compactMap { try? Revocation(json: $0) }
        // An older daemon says nothing: it has taken none in, and the others hold its list to that.
        let applied = status["revocationsApplied"]?.intValue ?? 0
        do {
            if !progress.joined {
                try await store.migrate()
                try await store.join(machine: machine, instance: instance, version: version, offlineAfter: Self.offlineAfter)
                progress.joined = true
                joined.set(machine)
                logger.notice("joined the federation as machine \(machine)")
            }
            try await store.record(revocations: made, by: machine)
            try await store.heartbeat(
                machine: machine, instance: instance, sessions: sessions.serialized(), allowed: allowed.serialized(), revocationsApplied: applied)
            progress.machines = try await store.machines(except: machine, offlineAfter: Self.offlineAfter).map(Self.summary)
            progress.revocations = Self.dated(try await store.revocations(), before: progress.revocations, now: Date())
            if progress.unreachableSince != nil { logger.notice("the federation database answers again") }
            progress.unreachableSince = nil
            progress.problem = nil
        } catch {
            switch error {
            case .database:
                if progress.unreachableSince == nil {
                    progress.unreachableSince = Date()
                    // What the owner should fix, as the database's own error says it.
                    progress.problem = await probe.reason() ?? error.description
                    logger.warning("\(error): \(progress.problem ?? "")")
                }
            case .machineLost:
                logger.error("\(error)")
                progress.joined = false
                joined.set(nil)
                progress.problem = error.description
            case .machineTaken, .schemaTooNew:
                if progress.problem != error.description { logger.error("\(error)") }
                if case .schemaTooNew = error, progress.joined {
                    // Moved on while joined: this plugin writes nothing more to it.
                    progress.joined = false
                    joined.set(nil)
                }
                progress.problem = error.description
                // Not a database outage: it answered, and refused.
                progress.unreachableSince = nil
            }
        }
    }

    static func summary(_ row: MachineRow) -> MachineSummary {
        let sessions = ((try? JSONValue.parse(bytes: Array(row.sessions.utf8)))?.arrayValue ?? []).compactMap { try? SessionSummary(json: $0) }
        let allowed = ((try? JSONValue.parse(bytes: Array(row.allowed.utf8)))?.objectValue ?? [:]).mapValues {
            ($0.arrayValue ?? []).compactMap(\.stringValue)
        }
        return MachineSummary(
            name: row.name, online: row.online, lastSeen: row.lastSeen, sessions: sessions, allowed: allowed,
            revocationsApplied: row.revocationsApplied)
    }

    /// The table's revocations for the daemon, each dated on this machine's clock (its daemon
    /// compares them with its own pairings' times): as `before` dated it, or now less its age.
    static func dated(_ rows: [RevocationRow], before: [Revocation], now: Date) -> [Revocation] {
        let known = Dictionary(before.compactMap { revocation in revocation.number.map { ($0, revocation.at) } }, uniquingKeysWith: { a, _ in a })
        return rows.map { row in
            Revocation(
                messenger: row.messenger, user: row.user, stamp: row.stamp,
                at: known[row.number] ?? ISO8601.string(now.addingTimeInterval(-row.secondsAgo)), number: row.number, machine: row.machine)
        }
    }
}
