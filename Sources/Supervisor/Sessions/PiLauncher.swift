/// Builds the pi command line and environment for a session, from the `pi:` config section.
struct PiLauncher: Sendable {
    var settings: PiSettings

    var startTimeout: Duration { settings.startTimeout }
    var dialogTimeout: Duration? { settings.dialogTimeout }

    func spec(cwd: String, sessionFile: String?) -> ChildSpec {
        ChildSpec(
            executable: settings.command, arguments: settings.arguments(sessionFile: sessionFile),
            environment: settings.childEnvironment, workingDirectory: cwd, maxLineBytes: 64 << 20)
    }
}
