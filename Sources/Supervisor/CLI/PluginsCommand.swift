import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List plugins, reload the plugin folders, or restart (re-arm) one plugin.",
        discussion: "pi-relayd plugins | pi-relayd plugins reload | pi-relayd plugins restart NAME")

    @Argument(help: "reload | restart") var action: String?
    @Argument(help: "Plugin name, for restart.") var name: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = Home.resolve().client
        do {
            switch action {
            case nil:
                let list = try client.call(.plugins)
                output.emit(list) { Self.table(list.arrayValue ?? []) }
            case "reload":
                let result = try client.call(.pluginsReload)
                output.emit(result) {
                    let added = (result["added"]?.arrayValue ?? []).compactMap(\.stringValue)
                    let removed = (result["removed"]?.arrayValue ?? []).compactMap(\.stringValue)
                    return
                        "reloaded: \(added.isEmpty ? "nothing added" : "added " + added.joined(separator: ", "))\(removed.isEmpty ? "" : "; removed " + removed.joined(separator: ", "))"
                }
            case "restart":
                guard let name else { throw ValidationError("usage: pi-relayd plugins restart NAME") }
                let result = try client.call(.pluginsRestart, ["name": .string(name)])
                output.emit(result) { "restarting \(name)" }
            default:
                throw ValidationError("unknown action \(action!); use reload or restart NAME")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }

    static func table(_ list: [JSONValue]) -> String {
        if list.isEmpty { return "no plugins (put executables in the plugins folder, then: pi-relayd plugins reload)" }
        var lines: [String] = []
        for plugin in list {
            var line = "\(plugin["name"]?.stringValue ?? "?")\t\(plugin["state"]?.stringValue ?? "?")"
            if let pid = plugin["pid"]?.intValue { line += "\tpid \(pid)" }
            if let restarts = plugin["restarts"]?.intValue, restarts > 0 { line += "\trestarts \(restarts)" }
            if let outbox = plugin["outbox"]?.intValue, outbox > 0 { line += "\toutbox \(outbox)" }
            if let reason = plugin["reason"]?.stringValue { line += "\t\(reason)" }
            lines.append(line)
            for stderrLine in plugin["lastStderr"]?.arrayValue ?? [] { lines.append("    | \(stderrLine.stringValue ?? "")") }
        }
        return lines.joined(separator: "\n")
    }
}
