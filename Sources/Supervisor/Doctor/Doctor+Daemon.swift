import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

extension Doctor {
    /// The daemon answers on its socket, and each of its plugins runs (or why not). A bundled
    /// messenger nobody set up is not configured on purpose: that passes.
    func daemonChecks(setUp: Set<String>) -> [DoctorCheck] {
        let status: JSONValue
        do { status = try ControlClient(path: home.socketPath).call("status") } catch {
            return [
                .fail("daemon", "daemon", "not reachable at \(home.socketPath) (\(error))", fix: "pi-relayd start (or pi-relayd service install)")
            ]
        }
        var checks: [DoctorCheck] = [
            .pass("daemon", "daemon", "running, pid \(status["pid"]?.intValue ?? 0), version \(status["version"]?.stringValue ?? "?")")
        ]
        for plugin in status["plugins"]?.arrayValue ?? [] {
            let name = plugin["name"]?.stringValue ?? "?"
            let state = plugin["state"]?.stringValue ?? "?"
            let reason = plugin["reason"]?.stringValue
            switch state {
            case "running", "starting", "handshaking", "backoff", "stopping", "stopped":
                let lastError = (plugin["lastStderr"]?.arrayValue ?? []).last?.stringValue
                checks.append(.pass("plugin:\(name)", "plugin \(name)", state + (lastError.map { ", last error: \($0)" } ?? "")))
            case "not-configured" where SetupMessenger(rawValue: name) != nil && !setUp.contains(name):
                checks.append(.pass("plugin:\(name)", "plugin \(name)", "not set up (pi-relayd setup \(name) to use it)"))
            case "not-configured":
                checks.append(
                    .fail(
                        "plugin:\(name)", "plugin \(name)", "not configured: \(reason ?? "no reason given")",
                        fix: "fix what it names, then pi-relayd plugins restart \(name)"))
            default:
                checks.append(
                    .fail(
                        "plugin:\(name)", "plugin \(name)", "\(state): \(reason ?? "no reason given")",
                        fix: "see pi-relayd logs \(name); once fixed, pi-relayd plugins restart \(name)"))
            }
        }
        return checks
    }

    /// The pi extension is installed where pi loads it, and is this pi-relayd's version.
    func extensionCheck() -> DoctorCheck {
        let files = ExtensionFiles()
        let target = files.target(project: nil)
        guard FileManager.default.fileExists(atPath: target) else {
            return .fail(
                "extension", "pi extension", "not installed at \(target): terminal pi sessions cannot be attached",
                fix: "pi-relayd extension install")
        }
        guard let version = ExtensionFiles.version(ofFileAt: target) else {
            return .fail(
                "extension", "pi extension", "\(target) is not the pi-relayd extension", fix: "move that file away, then pi-relayd extension install")
        }
        let sameBytes = (try? files.shipped()).map { FileManager.default.contentsEqual(atPath: $0, andPath: target) } ?? false
        guard version == Version.current, sameBytes else {
            return .fail(
                "extension", "pi extension",
                "\(target) is version \(version), this pi-relayd is \(Version.current)" + (sameBytes ? "" : " (its file differs)"),
                fix: "pi-relayd extension install")
        }
        return .pass("extension", "pi extension", "\(target), version \(version)")
    }
}
