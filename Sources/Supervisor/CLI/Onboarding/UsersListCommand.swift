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
        let environment = ProcessInfo.processInfo.environment
        let paired: PairedUsers
        let loaded: LoadedConfig
        do {
            paired = try PairedUsers.load(path: PairedUsers.path(stateDir: home.stateDir))
            loaded = try ConfigLoader.load(home: home.root, knownPlugins: [], environment: environment)
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        let merged = environment.merging(loaded.dotenv) { current, _ in current }
        var rows: [JSONValue] = []
        // A messenger's allowlist may come from its variable alone (DISCORD_ALLOWED_USERS), so
        // every installed plugin and every messenger someone paired with is asked, not only
        // those with a section.
        let installed = PluginDiscovery(directories: PluginDiscovery.searchPath(home: home, environment: environment), disabled: []).scan()
        let messengers = Set(loaded.config.pluginSections.keys).union(installed.found.map(\.name)).union(paired.users.map(\.messenger))
        for messenger in messengers.sorted() {
            let configured = Allowlist(section: loaded.config.pluginSections[messenger], messenger: messenger, environment: merged).users
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
