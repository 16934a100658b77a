import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// The terminal's settings before a secret prompt turned echo off, for a signal that ends the
/// prompt (Ctrl-C, a closed terminal) to put back: only touched by `SecretPrompt.read` before
/// and after it installs its handlers, and by those handlers, which run while it waits.
nonisolated(unsafe) private var promptTerminal = termios()

/// Reads a secret from the terminal without echoing it.
enum SecretPrompt {
    /// Asks on the controlling terminal with echo off; nil when stdin is not a terminal (a
    /// script should use `--token-stdin`) or nothing was read. Ended by a signal meanwhile, the
    /// terminal echoes again: left silent, the shell's input would stay invisible.
    static func read(_ prompt: String) -> String? {
        guard isatty(0) == 1 else { return nil }
        StandardStreams.writeError(prompt)
        var saved = termios()
        let canHide = tcgetattr(0, &saved) == 0
        let ending = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        var before: [sighandler_t?] = []
        if canHide {
            promptTerminal = saved
            before = ending.map { signal($0, Self.restoreAndEnd) }
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        let line = Swift.readLine(strippingNewline: true)
        if canHide {
            tcsetattr(0, TCSAFLUSH, &saved)
            for (index, signalNumber) in ending.enumerated() { _ = signal(signalNumber, before[index]) }
        }
        StandardStreams.writeError("\n")
        return line
    }

    /// Puts the terminal back, then ends the process as the signal would have.
    private static let restoreAndEnd: @convention(c) (Int32) -> Void = { signalNumber in
        _ = tcsetattr(0, TCSANOW, &promptTerminal)
        _ = signal(signalNumber, SIG_DFL)
        _ = raise(signalNumber)
    }
}
