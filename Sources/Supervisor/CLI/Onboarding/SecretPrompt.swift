import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a secret from the terminal without echoing it.
enum SecretPrompt {
    /// Asks on the controlling terminal with echo off; nil when stdin is not a terminal (a
    /// script should use `--token-stdin`) or nothing was read.
    static func read(_ prompt: String) -> String? {
        guard isatty(0) == 1 else { return nil }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let canHide = tcgetattr(0, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        let line = Swift.readLine(strippingNewline: true)
        if canHide { tcsetattr(0, TCSAFLUSH, &saved) }
        FileHandle.standardError.write(Data("\n".utf8))
        return line
    }
}
