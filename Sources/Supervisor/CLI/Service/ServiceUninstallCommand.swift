import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct ServiceUninstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Stop and disable the systemd user service and remove its unit.")

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let systemd = SystemdUser(environment: ProcessInfo.processInfo.environment)
        guard FileManager.default.fileExists(atPath: systemd.unitPath) else {
            output.emit(["unit": .string(systemd.unitPath), "removed": false]) { "no unit at \(systemd.unitPath): nothing to remove" }
            return
        }
        let canRun = systemd.systemctl != nil ? await systemd.managerAnswers() : false
        var ran: [String] = []
        if canRun, let outcome = await systemd.run(["disable", "--now", ServiceUnit.name]) {
            guard outcome.status == 0 else {
                CLIFailure.exit(
                    RemoteError(code: .other("systemctl"), message: "systemctl --user disable --now \(ServiceUnit.name) failed: \(outcome.output)"),
                    json: output.json)
            }
            ran.append("systemctl --user disable --now \(ServiceUnit.name)")
        }
        // What `disable` removes, removed by hand when systemctl could not run: a link left
        // behind would name a unit that is gone.
        let wants = systemd.unitFolder + "/default.target.wants/" + ServiceUnit.name
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: wants)) != nil { unlink(wants) }
        guard unlink(systemd.unitPath) == 0 else {
            CLIFailure.exit(
                RemoteError(code: .other("unwritable"), message: "cannot remove \(systemd.unitPath): \(String(cString: strerror(errno)))"),
                json: output.json)
        }
        var toRun: [String] = []
        if canRun, let outcome = await systemd.run(["daemon-reload"]), outcome.status == 0 {
            ran.append("systemctl --user daemon-reload")
        } else {
            toRun = ["systemctl --user stop \(ServiceUnit.name)", "systemctl --user daemon-reload"]
        }
        output.emit([
            "unit": .string(systemd.unitPath), "removed": true, "ran": .array(ran.map { .string($0) }), "toRun": .array(toRun.map { .string($0) }),
        ]) {
            var lines = ["removed \(systemd.unitPath)"]
            if !ran.isEmpty { lines.append("ran: " + ran.joined(separator: "; ")) }
            if !toRun.isEmpty { lines += ["if the service manager still runs it, run:"] + toRun.map { "    " + $0 } }
            return lines.joined(separator: "\n")
        }
    }
}
