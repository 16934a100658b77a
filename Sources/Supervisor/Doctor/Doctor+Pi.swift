import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif
extension Doctor {
    package static let piInstallHint = "install pi (npm install -g @mariozechner/pi-coding-agent) or set pi.command in config.yaml to its path"

    /// pi on PATH, its version, and a `pi --mode rpc` that answers `get_state` in time.
    package func piChecks(_ settings: PiSettings) async -> [DoctorCheck] {
        guard let path = PiProbe.locate(settings.command, path: environment["PATH"]) else {
            let where_ =
                settings.command.contains("/") ? settings.command + " does not exist or is not executable" : "\(settings.command) is not in PATH"
            return [.fail("pi", "pi", where_, fix: Self.piInstallHint)]
        }
        let scratch: String
        do { scratch = try PrivateTempFolder.make("pi-relayd-doctor") } catch {
            return [.fail("pi", "pi", error.message, fix: "make \(UserFolders.temporary) writable, or point TMPDIR at a folder that is")]
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let probe = PiProbe(settings: settings, workingDirectory: scratch)
        var checks: [DoctorCheck] = []
        let (version, versionProblem) = await probe.version(timeout: piTimeout)
        if let version {
            checks.append(.pass("pi", "pi", "\(path), version \(version)"))
        } else {
            checks.append(.fail("pi", "pi", "\(path): --version failed (\(versionProblem ?? "no output"))", fix: Self.piInstallHint))
        }
        let (state, stateProblem) = await probe.rpcState(timeout: piTimeout)
        if let state {
            let model = state["model"].map { ($0["provider"]?.stringValue.map { $0 + "/" } ?? "") + ($0["id"]?.stringValue ?? "?") }
            checks.append(.pass("pi-rpc", "pi --mode rpc", "answers get_state" + (model.map { ", model \($0)" } ?? ", no model chosen yet")))
        } else {
            checks.append(
                .fail(
                    "pi-rpc", "pi --mode rpc", stateProblem ?? "no answer",
                    fix:
                        "run `\(settings.command) --mode rpc` by hand and send {\"type\":\"get_state\"}: pi needs a model and its API key (pi's own setup), "
                        + "and pi.args must be ones pi accepts"))
        }
        return checks
    }
}
