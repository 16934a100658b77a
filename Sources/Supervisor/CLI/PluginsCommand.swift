import ArgumentParser
import PiRelaySDK

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
                let list = try client.call("plugins")
                output.emit(list) { Self.table(list.arrayValue ?? []) }
            case "reload":
                let r = try client.call("plugins.reload")
                output.emit(r) {
                    let a = (r["added"]?.arrayValue ?? []).compactMap(\.stringValue)
                    let d = (r["removed"]?.arrayValue ?? []).compactMap(\.stringValue)
                    return
                        "reloaded: \(a.isEmpty ? "nothing added" : "added " + a.joined(separator: ", "))\(d.isEmpty ? "" : "; removed " + d.joined(separator: ", "))"
                }
            case "restart":
                guard let name else { throw ValidationError("usage: pi-relayd plugins restart NAME") }
                let r = try client.call("plugins.restart", ["name": .string(name)])
                output.emit(r) { "restarting \(name)" }
            default:
                throw ValidationError("unknown action \(action!); use reload or restart NAME")
            }
        } catch let e as ValidationError {
            throw e
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }

    static func table(_ list: [JSONValue]) -> String {
        if list.isEmpty { return "no plugins (put executables in the plugins folder, then: pi-relayd plugins reload)" }
        var lines: [String] = []
        for p in list {
            var line = "\(p["name"]?.stringValue ?? "?")\t\(p["state"]?.stringValue ?? "?")"
            if let pid = p["pid"]?.intValue { line += "\tpid \(pid)" }
            if let r = p["restarts"]?.intValue, r > 0 { line += "\trestarts \(r)" }
            if let o = p["outbox"]?.intValue, o > 0 { line += "\toutbox \(o)" }
            if let reason = p["reason"]?.stringValue { line += "\t\(reason)" }
            lines.append(line)
            for l in p["lastStderr"]?.arrayValue ?? [] { lines.append("    | \(l.stringValue ?? "")") }
        }
        return lines.joined(separator: "\n")
    }
}
