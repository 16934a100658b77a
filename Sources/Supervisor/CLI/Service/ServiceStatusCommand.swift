import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ServiceStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say whether the systemd user service is installed, enabled and running.",
        discussion: "Exit status: 0 when the unit is installed, 1 when it is not.")

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let systemd = SystemdUser(environment: ProcessInfo.processInfo.environment)
        let text = try? String(contentsOfFile: systemd.unitPath, encoding: .utf8)
        let installed = text != nil
        let runs = text.flatMap(Self.executable(in:))
        let here = PluginDiscovery.runningExecutable()
        let enabled = installed && FileManager.default.fileExists(atPath: systemd.unitFolder + "/default.target.wants/" + ServiceUnit.name)
        var active: String?
        if installed, systemd.systemctl != nil, await systemd.managerAnswers() {
            active = await systemd.run(["is-active", ServiceUnit.name])?.output
        }
        let lingering = systemd.lingering
        output.emit([
            "unit": .string(systemd.unitPath), "installed": .bool(installed), "executable": JSONValue(runs),
            "thisExecutable": .bool(runs == here), "enabled": .bool(enabled), "active": JSONValue(active),
            "lingering": lingering.map { .bool($0) } ?? .null,
        ]) {
            guard installed else { return "not installed (no \(systemd.unitPath))\ninstall it with: pi-relayd service install" }
            var lines = ["installed at \(systemd.unitPath)", "  runs \(runs ?? "?")"]
            if runs != here { lines.append("  which is not this pi-relayd (\(here)): run `pi-relayd service install` to point it here") }
            lines.append("  " + (enabled ? "enabled: starts with your user session" : "not enabled: systemctl --user enable \(ServiceUnit.name)"))
            lines.append("  " + (active.map { "state: \($0)" } ?? "state: unknown (`systemctl --user` reaches no service manager here)"))
            switch lingering {
            case true?: lines.append("  lingering: on (runs without a login)")
            case false?: lines.append("  lingering: off (stops when you log out): loginctl enable-linger \(systemd.userName)")
            case nil: break
            }
            return lines.joined(separator: "\n")
        }
        if !installed { throw ExitCode(1) }
    }

    /// The executable of the unit's `ExecStart=`, quotes removed.
    static func executable(in unit: String) -> String? {
        guard let line = unit.split(separator: "\n").first(where: { $0.hasPrefix("ExecStart=") }) else { return nil }
        let command = line.dropFirst("ExecStart=".count)
        if command.hasPrefix("\"") {
            var word = ""
            var escaped = false
            for character in command.dropFirst() {
                if escaped {
                    word.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    word.append(character)
                }
            }
            return word.replacing("%%", with: "%").replacing("$$", with: "$")
        }
        return command.split(separator: " ").first.map { String($0).replacing("%%", with: "%").replacing("$$", with: "$") }
    }
}
