import PiRelaySDK
import SupervisorIO

/// The pi behind a session: where its commands are written (a child's stdin, or the link to a
/// terminal's extension), its pid, a start in progress, how its last child ended and what it
/// said on stderr, a child an earlier daemon left behind, and the lines of its stdout skipped.
package struct PiChild {
    package static let stderrKept = 40

    package var input: (any PiInput)?
    package var pid: Int32?
    /// A start in progress, which other callers wait for instead of starting another.
    package var starting: Task<Void, any Error>?
    /// How the current child ended, once it has.
    package private(set) var lastExit: ChildExit?
    /// pi's last lines on stderr, which explain a failed start or an exit.
    package private(set) var stderrTail: [String] = []
    /// The pid an earlier daemon's child had, stopped before a new one starts.
    package var orphan: Int32?
    package private(set) var skippedLines = 0
    /// The chats heard once that this session's pi runs without the extension.
    package var toldExtensionProblem = false
    /// Reads pi's stdout lines as events.
    package let reader = PiEventReader()

    /// A new child is about to start.
    package mutating func launching(_ input: any PiInput) {
        stderrTail = []
        lastExit = nil
        self.input = input
    }

    package mutating func heard(stderr line: String) {
        stderrTail.append(line)
        if stderrTail.count > Self.stderrKept { stderrTail.removeFirst(stderrTail.count - Self.stderrKept) }
    }

    package mutating func skipped() {
        skippedLines += 1
    }

    /// The child ended: its input, to close.
    package mutating func exited(_ exit: ChildExit) -> (any PiInput)? {
        let old = input
        pid = nil
        input = nil
        lastExit = exit
        return old
    }
}
