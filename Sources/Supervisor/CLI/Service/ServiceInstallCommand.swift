import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ServiceInstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Write the systemd user unit (~/.config/systemd/user/pi-relayd.service), then enable and start it.",
        discussion: """
            The unit runs this pi-relayd, by its absolute path, as `start --foreground`, with your PATH as it is now \
            (and the folder pi was found in first), so pi installed with nvm is found. Run it again after moving \
            pi-relayd or pi. When systemctl is missing or `systemctl --user` reaches no service manager, the unit \
            is written and the commands to run are printed.
            """)

    @Flag(name: .long, help: "Only write the unit; do not run systemctl.")
    var noStart = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let systemd = SystemdUser(environment: environment)
        let home = Home.resolve(environment: environment)
        let searchPath = environment["PATH"] ?? ""
        let piCommand = Self.configuredPi(home: home, environment: environment)
        let pi = ExecutableSearch.find(piCommand, path: searchPath)
        let relaydHome = environment["PI_RELAYD_HOME"].flatMap { $0.isEmpty ? nil : Home.absolute($0) }
        let unit = ServiceUnit(
            executable: PluginDiscovery.runningExecutable(), path: Self.servicePath(pi: pi, searchPath: searchPath), relaydHome: relaydHome)
        do {
            try FileManager.default.createDirectory(atPath: systemd.unitFolder, withIntermediateDirectories: true)
            try AtomicFile.writeOrThrow(Array(unit.text.utf8), to: systemd.unitPath)
        } catch {
            CLIFailure.exit(RemoteError(code: .other("unwritable"), message: "cannot write \(systemd.unitPath): \(error)"), json: output.json)
        }

        // A daemon started by hand holds the home's lock: the service would fail to start and be
        // restarted every few seconds. It is enabled, and started once that daemon is stopped.
        let running = ControlClient.isAlive(home.socketPath)
        let commands = [["daemon-reload"], running ? ["enable", ServiceUnit.name] : ["enable", "--now", ServiceUnit.name]]
        var ran: [String] = []
        var toRun: [String] = []
        var whyNotRun: String?
        if noStart {
            whyNotRun = "--no-start"
        } else if systemd.systemctl == nil {
            whyNotRun = "there is no systemctl on PATH"
        } else if await !systemd.managerAnswers() {
            whyNotRun = "`systemctl --user` reaches no service manager here (no user session bus)"
        }
        if whyNotRun == nil {
            for command in commands {
                let outcome = await systemd.run(command)
                guard let outcome, outcome.status == 0 else {
                    let detail = outcome.map { $0.output.isEmpty ? "status \($0.status)" : $0.output } ?? "systemctl vanished"
                    CLIFailure.exit(
                        RemoteError(code: .other("systemctl"), message: "systemctl --user \(command.joined(separator: " ")) failed: \(detail)"),
                        json: output.json)
                }
                ran.append("systemctl --user " + command.joined(separator: " "))
            }
        } else {
            toRun = commands.map { "systemctl --user " + $0.joined(separator: " ") }
        }
        if running { toRun += ["pi-relayd stop", "systemctl --user start \(ServiceUnit.name)"] }
        let lingering = systemd.lingering
        let lingerHint = lingering == true ? nil : "loginctl enable-linger \(systemd.userName)"

        var report: JSONValue = [
            "unit": .string(systemd.unitPath), "executable": .string(unit.executable), "pi": JSONValue(pi),
            "path": .string(unit.path.joined(separator: ":")), "ran": .array(ran.map { .string($0) }),
            "toRun": .array(toRun.map { .string($0) }), "lingering": lingering.map { .bool($0) } ?? .null, "lingerHint": JSONValue(lingerHint),
        ]
        if let whyNotRun { report["notRunBecause"] = .string(whyNotRun) }
        output.emit(report) {
            var lines = ["wrote \(systemd.unitPath)", "  runs \(unit.executable) start --foreground"]
            if let pi {
                lines.append("  with pi from \(pi)")
            } else {
                lines.append(
                    "  pi (\(piCommand)) is not on your PATH: install it, then run `pi-relayd service install` again so the service finds it")
            }
            if !ran.isEmpty { lines.append("ran: " + ran.joined(separator: "; ")) }
            if running { lines.append("a pi-relayd started by hand is running: the service is enabled and starts once it is stopped") }
            if !toRun.isEmpty {
                lines.append(whyNotRun.map { "nothing was started (\($0)); run:" } ?? "run:")
                lines += toRun.map { "    " + $0 }
            }
            if let lingerHint {
                lines.append("to keep it running when you log out (and start it at boot), enable lingering once:")
                lines.append("    " + lingerHint)
            }
            lines.append("logs: journalctl --user -u \(ServiceUnit.name) (and pi-relayd logs)")
            return lines.joined(separator: "\n")
        }
    }

    /// `pi.command` from the config when it can be read, else `pi`.
    static func configuredPi(home: Home, environment: [String: String]) -> String {
        let known = Set(PluginDiscovery(directories: PluginDiscovery.searchPath(home: home), disabled: []).scan().found.map(\.name))
        return (try? ConfigLoader.load(home: home.root, knownPlugins: known, environment: environment))?.config.pi.command ?? "pi"
    }

    /// The folder pi is in first, then each absolute folder of the installing shell's PATH once;
    /// the system folders when that PATH is empty.
    static func servicePath(pi: String?, searchPath: String) -> [String] {
        var folders: [String] = []
        for folder in [pi?.parentPath].compactMap({ $0 }) + searchPath.split(separator: ":").map(String.init)
        where folder.hasPrefix("/") && !folders.contains(folder) {
            folders.append(folder)
        }
        if folders.isEmpty || folders == [pi?.parentPath] { folders += ["/usr/local/bin", "/usr/bin", "/bin"] }
        return folders
    }
}
