import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// Reads a secret from the terminal without echoing it.
enum SecretPrompt {
    /// Asks on the controlling terminal with echo off; nil when stdin is not a terminal (a
    /// script should use `--token-stdin`) or nothing was read.
    static func read(_ prompt: String) -> String? {
        guard isatty(0) == 1 else { return nil }
        StandardStreams.writeError(prompt)
        var saved = termios()
        let canHide = tcgetattr(0, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        let line = Swift.readLine(strippingNewline: true)
        if canHide { tcsetattr(0, TCSAFLUSH, &saved) }
        StandardStreams.writeError("\n")
        return line
    }
}
