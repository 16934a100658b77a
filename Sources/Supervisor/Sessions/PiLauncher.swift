import SupervisorIO

/// Builds the pi command line and environment for a session, from the `pi:` and `approvals:`
/// config sections.
package struct PiLauncher: Sendable {
    package var settings: PiSettings
    package var approvals = ApprovalSettings()
    /// The pi-relayd extension every child loads (`-e`), nil when it is off or unusable.
    package var extensionPath: String?
    /// Why the children run without the extension although `pi.extension` asks for it.
    package var extensionMissing: String?
    /// The same with what it means: said once per session in its chats and in the log.
    package var extensionProblem: String? { extensionMissing.map { "\($0): approval gates and agent tools are off" } }
    /// The daemon's home, for the extension in the child to find the control socket.
    package var home: String?
    /// How long pi may take to answer a command that names no limit of its own
    /// (`sessions.limits.commandSeconds`).
    package var commandTimeout: Duration = .seconds(60)
    /// The plugins' secret variables, kept from pi (`PluginSections.withheldFromPi`), read at
    /// each start: a plugin's hello adds its declared ones.
    package var withheld: @Sendable () -> Set<String> = { [] }
    /// Waited for before each pi starts, until `withheld` is complete: the plugins found at start
    /// have said hello (`PluginHost.firstTries`). A session restored at start would otherwise be
    /// given a bot token its plugin had not yet declared.
    package var secretsKnown: @Sendable () async -> Void = {}

    package var startTimeout: Duration { settings.startTimeout }
    package var dialogTimeout: Duration? { settings.dialogTimeout }

    /// With `pi.extension` on, finds the shipped extension and checks that it is this version's.
    package init(settings: PiSettings, approvals: ApprovalSettings = ApprovalSettings(), files: ExtensionFiles? = nil, home: String? = nil) {
        self.settings = settings
        self.approvals = approvals
        self.home = home
        guard settings.loadsExtension, let files else { return }
        do {
            // The entry file (index.ts): pi loads it with its modules beside it (spec §1.1, §1.2).
            let path = try files.shipped()
            let version = ExtensionFiles.version(ofExtensionAt: path)
            if version == Version.current {
                extensionPath = path
            } else {
                extensionMissing = "the pi-relayd extension at \(path) is version \(version ?? "unknown"), not \(Version.current)"
            }
        } catch {
            extensionMissing = "\(error)"
        }
    }

    /// Why a session with approval rules may not start: the extension that asks about its calls
    /// is wanted but cannot be loaded, and a gate that cannot ask denies. nil when it may.
    /// `pi.extension: false` is the owner's choice of children without gates (SECURITY.md).
    package func gatesRefusal(forSession name: String) -> String? {
        guard let extensionMissing else { return nil }
        let rules = approvals.rules(forSession: name).map(\.name)
        guard !rules.isEmpty else { return nil }
        return """
            session \(name) has approval rules (\(rules.joined(separator: ", "))) and the extension that applies them cannot be \
            loaded: \(extensionMissing). No pi was started, so no call ran without its gate; reinstall pi-relayd so that its \
            extension matches, or set pi.extension: false to run children without gates
            """
    }

    /// Whether a line pi wrote on stderr says it could not load our extension: pi reports a load
    /// error there and starts without it (pi extension spec §1.2, pi-rpc spec §1b). The wording
    /// is pi's; the extension's path and a word of failure are what tell it.
    package func reportsExtensionFailure(_ line: String) -> Bool {
        guard let extensionPath else { return false }
        let folder = extensionPath.hasSuffix("/index.ts") ? String(extensionPath.dropLast("/index.ts".count)) : extensionPath
        guard line.contains(folder) else { return false }
        let lower = line.lowercased()
        return ["fail", "error", "cannot", "could not", "unable"].contains { lower.contains($0) }
    }

    /// Whether session `name` has approval rules, which only the extension applies.
    package func hasGates(forSession name: String) -> Bool {
        !approvals.rules(forSession: name).isEmpty
    }

    package func spec(cwd: String, sessionFile: String?, sessionID: String, sessionName: String) -> ChildSpec {
        var arguments = settings.arguments(sessionFile: sessionFile)
        var environment = settings.childEnvironment
        if let extensionPath {
            arguments += ["-e", extensionPath]
            // The extension in the child asks the daemon about gated calls under this id.
            environment["PI_RELAYD_SESSION"] = sessionID
            if let home { environment["PI_RELAYD_HOME"] = home }
            if let gates = approvals.extensionJSON(forSession: sessionName) { environment["PI_RELAYD_APPROVALS"] = gates.serialized() }
        }
        var spec = ChildSpec(
            executable: settings.command, arguments: arguments, environment: environment, workingDirectory: cwd, maxLineBytes: 64 << 20,
            pacedOutput: true)
        // `pi.env` may still hand one over on purpose.
        spec.withheld = withheld().subtracting(settings.childEnvironment.keys)
        return spec
    }
}
