import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct UsersListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Every allowed chat user: from config.yaml or the environment (allowedUsers, <MESSENGER>_ALLOWED_USERS) and paired.")

    @OptionGroup var output: OutputOptions

    func run() throws {
        let home = Home.resolve()
        let paired: PairedUsers
        let allowlists: ConfiguredAllowlists
        do {
            paired = try PairedUsers.load(path: PairedUsers.path(stateDir: home.stateDir))
            allowlists = try ConfiguredAllowlists.load(home: home)
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        var rows: [JSONValue] = []
        for messenger in allowlists.messengers.union(paired.users.map(\.messenger)).sorted() {
            let configured = allowlists.users(messenger)
            for id in configured.sorted() {
                rows.append(["messenger": .string(messenger), "id": .string(id), "source": "config"])
            }
            for user in paired.users where user.messenger == messenger && !configured.contains(user.id) {
                rows.append([
                    "messenger": .string(messenger), "id": .string(user.id), "name": .string(user.name), "source": "paired",
                    "pairedAt": .string(user.pairedAt),
                ])
            }
        }
        output.emit(["users": .array(rows)]) {
            guard !rows.isEmpty else { return "Nobody is allowed in yet. Let yourself in with: pi-relayd pair discord (or telegram)" }
            return rows.map { row in
                let name = row["name"]?.stringValue.map { " \($0)" } ?? ""
                let since = row["pairedAt"]?.stringValue.map { ", since \($0)" } ?? ""
                return "\(row["messenger"]?.stringValue ?? "")  \(row["id"]?.stringValue ?? "")\(name)  (\(row["source"]?.stringValue ?? "")\(since))"
            }.joined(separator: "\n")
        }
    }
}
