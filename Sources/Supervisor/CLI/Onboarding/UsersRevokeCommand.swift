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
            if let unbound = result["unbound"]?.arrayValue, !unbound.isEmpty {
                lines.append("✓ their direct messages watch no session now (\(unbound.count))")
            }
            if let removed = result["schedulesRemoved"]?.arrayValue, !removed.isEmpty {
                lines.append("✓ removed the schedules they made: " + removed.compactMap { $0.intValue.map { "#\($0)" } }.joined(separator: ", "))
            }
            for name in result["stillConfiguredIn"]?.arrayValue ?? [] {
                lines.append("⚠️ \(id) is still allowed on \(name.stringValue ?? "") by config.yaml or the environment")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// With no daemon running, the files are changed here (the paired users, the user's direct
    /// messages' bindings, their schedules); the daemon reads them when it starts.
    private func revokeOffline(_ home: Home) throws -> JSONValue {
        var paired = try PairedUsers.load(path: PairedUsers.path(stateDir: home.stateDir))
        let gone = paired.remove(id: id, messenger: messenger)
        guard !gone.isEmpty else { throw RemoteError(code: .notFound, message: "no paired user \(id)" + (messenger.map { " on \($0)" } ?? "")) }
        try paired.save()
        let logger = Logger(label: "pi-relayd")
        let bindingsFile = StateFile<Binding>.bindings(path: home.bindingsFile)
        let schedulesFile = StateFile<Schedule>.schedules(path: home.schedulesFile)
        var bindings = try bindingsFile.load(logger: logger).records
        var schedules = try schedulesFile.load(logger: logger).records
        var unbound: [Binding] = []
        var unscheduled: [Schedule] = []
        for user in gone {
            let chats = bindings.extractAll { $0.isDirectMessage(of: user.id, on: user.messenger) }
            let keys = Set(chats.map(\.key))
            unscheduled += schedules.extractAll { $0.isMade(by: user.id, on: user.messenger, inChats: keys) }
            unbound += chats
        }
        if !unbound.isEmpty { try bindingsFile.save(bindings) }
        if !unscheduled.isEmpty { try schedulesFile.save(schedules) }
        return [
            "revoked": .array(gone.map(\.json)), "stillConfiguredIn": [], "unbound": .array(unbound.map { .string($0.key) }),
            "schedulesRemoved": .array(unscheduled.map { JSONValue($0.number) }),
        ]
    }
}
