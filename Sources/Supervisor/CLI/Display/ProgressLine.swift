import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// A line on stderr saying what the CLI is waiting for, with a spinner and the seconds so far
/// (`⠹ stopping pi-relayd… 3s`), redrawn by `tick` and erased by `finish`. Only on a terminal:
/// where stderr is a file or a pipe it writes nothing at all.
final class ProgressLine {
    private let message: String
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var frame = 0
    private var lastDrawn: ContinuousClock.Instant?
    private var shown = false

    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    init(_ message: String, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.message = message
        self.enabled = enabled
        tick()
    }

    /// Redraws the line, at most ten times a second.
    func tick() {
        guard enabled else { return }
        let now = ContinuousClock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        let seconds = (now - started).components.seconds
        let line = "\(Self.frames[frame % Self.frames.count]) \(message)… \(seconds)s"
        frame += 1
        write("\r\u{1B}[2K" + line)
        shown = true
    }

    /// Erases the line, leaving the cursor where it was before it was drawn.
    func finish() {
        guard shown else { return }
        write("\r\u{1B}[2K")
        shown = false
    }

    private func write(_ text: String) {
        StandardStreams.writeError(text)
    }
}
