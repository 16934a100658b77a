import ArgumentParser
import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct UsersRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Remove a paired user; they are refused from their next message on.",
        discussion: "Users from config.yaml or <MESSENGER>_ALLOWED_USERS are removed there, not here.")

    @Argument(help: "The user's id on the messenger.") var id: String
    @Option(help: "Only on this messenger (default: every messenger they were paired on).") var messenger: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        let home = Home.resolve()
        var params: JSONValue = ["id": .string(id)]
        if let messenger { params["messenger"] = .string(messenger) }
        let result: JSONValue
        do {
            if ControlClient.isAlive(home.socketPath) {
                result = try home.client.call(.usersRevoke, params)
            } else {
                result = try revokeOffline(home)
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        output.emit(result) {
            let gone = (result["revoked"]?.arrayValue ?? []).map {
                "\($0["name"]?.stringValue ?? id) (\($0["id"]?.stringValue ?? "")) on \($0["messenger"]?.stringValue ?? "")"
            }
            var lines = gone.map { "✓ revoked \($0)" }
            for name in result["acrossFederation"]?.arrayValue ?? [] {
                lines.append("✓ revoked \(id) on \(name.stringValue ?? "") on every machine that shares its bot (the federation)")
            }
            if let unbound = result["unbound"]?.arrayValue, !unbound.isEmpty {
                lines.append("✓ their direct messages watch no session now (\(unbound.count))")
            }
            if let removed = result["schedulesRemoved"]?.arrayValue, !removed.isEmpty {
                lines.append("✓ removed the schedules they made: " + removed.compactMap { $0.intValue.map { "#\($0)" } }.joined(separator: ", "))
            }
            for name in result["stillConfiguredIn"]?.arrayValue ?? [] {
                lines.append("⚠️ \(id) is still allowed on \(name.stringValue ?? "") by config.yaml or the environment")
            }
            for problem in result["unsaved"]?.arrayValue ?? [] {
                lines.append(
                    "⚠️ not saved (\(problem.stringValue ?? "")): gone for now, but a restart before pi-relayd saves again "
                        + "(status shows the problem) brings back what they had")
            }
            return lines.joined(separator: "\n")
        }
        if result["unsaved"]?.arrayValue?.isEmpty == false { throw ExitCode(1) }
    }

    /// With no daemon running, the files are changed here (the paired users, the user's direct
    /// messages' bindings, their schedules); the daemon reads them when it starts. The home's
    /// lock is held meanwhile. The paired users are saved last, so that a failure before leaves
    /// the user paired and the command can be run again to finish.
    private func revokeOffline(_ home: Home) throws -> JSONValue {
        let notPaired = RemoteError(code: .notFound, message: "no paired user \(id)" + (messenger.map { " on \($0)" } ?? ""))
        // No state folder: nobody was ever paired here (and there is no lock file to take).
        guard FileManager.default.fileExists(atPath: home.stateDir) else { throw notPaired }
        guard let lock = try HomeLock.take(home) else {
            throw RemoteError(
                code: .unavailable,
                message: "\(home.lockFile) is held (pi-relayd starting, or another command changing its files); run this again in a moment")
        }
        defer { close(lock) }
        var paired = try PairedUsers.load(path: PairedUsers.path(stateDir: home.stateDir))
        let gone = paired.remove(id: id, messenger: messenger)
        let allowlists = try ConfiguredAllowlists.load(home: home)
        guard !gone.isEmpty else {
            // As with a daemon: a user only in a configured allowlist is removed there.
            let messengers = messenger.map { [$0] } ?? allowlists.messengers.sorted()
            if let first = messengers.first(where: { allowlists.users($0).contains(id) }) { throw PairedUsers.notPaired(id, configuredIn: first) }
            throw notPaired
        }
        let logger = Logger(label: "pi-relayd")
        let bindingsFile = StateFile<Binding>.bindings(path: home.bindingsFile)
        let schedulesFile = StateFile<Schedule>.schedules(path: home.schedulesFile)
        var bindings = try bindingsFile.load(logger: logger).records
        var schedules = try schedulesFile.load(logger: logger).records
        var unbound: [Binding] = []
        var unscheduled: [Schedule] = []
        // Another way in (config.yaml, the environment) keeps what they have, as with a daemon.
        for user in gone where !allowlists.users(user.messenger).contains(user.id) {
            let chats = bindings.extractAll { $0.isDirectMessage(of: user.id, on: user.messenger) }
            let keys = Set(chats.map(\.key))
            unscheduled += schedules.extractAll { $0.isMade(by: user.id, on: user.messenger, inChats: keys) }
            unbound += chats
        }
        // Schedules before bindings: a schedule made in the DM is known by the DM's binding.
        if !unscheduled.isEmpty { try schedulesFile.save(schedules) }
        if !unbound.isEmpty { try bindingsFile.save(bindings) }
        try paired.save()
        let configuredIn = (messenger.map { [$0] } ?? allowlists.messengers.union(gone.map(\.messenger)).sorted())
            .filter { allowlists.users($0).contains(id) }
        return [
            "revoked": .array(gone.map(\.json)), "stillConfiguredIn": .array(configuredIn.map { .string($0) }),
            "unbound": .array(unbound.map { .string($0.key) }), "schedulesRemoved": .array(unscheduled.map { JSONValue($0.number) }),
        ]
    }
}
