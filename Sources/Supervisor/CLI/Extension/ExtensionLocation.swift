import ArgumentParser
import Supervisor
import SupervisorIO

/// `--project DIR`: a project's `.pi/extensions/` instead of pi's agent folder.
struct ExtensionLocation: ParsableArguments {
    @Option(name: .long, help: "Use DIR/.pi/extensions/ (this project only) instead of pi's agent folder.")
    var project: String?
}
