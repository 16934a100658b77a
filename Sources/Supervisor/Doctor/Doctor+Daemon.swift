import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

extension Doctor {
    /// The daemon answers on its socket, and each of its plugins runs (or why not). A bundled
    /// messenger (or the federation) nobody set up is not configured on purpose: that passes.
    /// A federation says whether its database answers.
    package func daemonChecks(messengers: Set<String>, setUp: Set<String>) -> [DoctorCheck] {
        let status: JSONValue
        do { status = try ControlClient(path: home.socketPath).call(.status) } catch {
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
            case "not-configured" where messengers.contains(name) && !setUp.contains(name):
                let how = name == "federation" ? "docs/FEDERATION.md" : "pi-relayd setup \(name)"
                checks.append(.pass("plugin:\(name)", "plugin \(name)", "not set up (\(how) to use it)"))
            case "not-configured":
                checks.append(
                    .fail(
                        "plugin:\(name)", "plugin \(name)", "not configured: \(reason ?? "no reason given")",
                        fix: "fix what it names, then pi-relayd plugins restart \(name) (pi-relayd restart after a change to config.yaml)"))
            default:
                checks.append(
                    .fail(
                        "plugin:\(name)", "plugin \(name)", "\(state): \(reason ?? "no reason given")",
                        fix: "see pi-relayd logs \(name); once fixed, pi-relayd plugins restart \(name)"))
            }
        }
        if let federation = status["federation"], var line = federation["line"]?.stringValue {
            if line.hasPrefix("federation: ") { line.removeFirst("federation: ".count) }
            if federation["unreachableSince"]?.stringValue != nil || federation["problem"]?.stringValue != nil {
                checks.append(
                    .fail(
                        "federation", "federation", line,
                        fix: "see pi-relayd logs federation and docs/FEDERATION.md; the local sessions go on meanwhile"))
            } else {
                checks.append(.pass("federation", "federation", line))
            }
        }
        return checks
    }

    /// The pi extension's folder is installed where pi loads it, is this pi-relayd's version, and
    /// no older pi-relayd's single-file copy loads beside it.
    package func extensionCheck() -> DoctorCheck {
        let files = ExtensionFiles()
        let target = files.target(project: nil)
        let oldFile = files.singleFile(project: nil)
        let oldVersion = ExtensionFiles.version(ofFileAt: oldFile)
        guard (try? FileManager.default.attributesOfItem(atPath: target)) != nil else {
            if let oldVersion {
                return .fail(
                    "extension", "pi extension",
                    "an older pi-relayd's single-file copy (\(oldVersion)) is at \(oldFile); the extension is a folder now",
                    fix: "pi-relayd extension install")
            }
            // Optional (README): sessions pi-relayd starts carry their own copy.
            return .pass(
                "extension", "pi extension",
                "not installed at \(target) (optional): a pi in your terminal cannot be attached until pi-relayd extension install")
        }
        guard let version = ExtensionFiles.version(ofExtensionAt: target) else {
            return .fail(
                "extension", "pi extension", "\(target) is not the pi-relayd extension",
                fix: "move that folder away, then pi-relayd extension install")
        }
        let sameFiles = (try? files.shippedFolder()).map { ExtensionFiles.sameFiles($0, target) } ?? false
        guard version == Version.current, sameFiles else {
            return .fail(
                "extension", "pi extension",
                "\(target) is version \(version), this pi-relayd is \(Version.current)" + (sameFiles ? "" : " (its files differ)"),
                fix: "pi-relayd extension install")
        }
        if let oldVersion {
            return .fail(
                "extension", "pi extension", "an older single-file copy (\(oldVersion)) at \(oldFile) loads beside \(target)",
                fix: "pi-relayd extension install (it removes the old copy)")
        }
        return .pass("extension", "pi extension", "\(target), version \(version)")
    }
}
