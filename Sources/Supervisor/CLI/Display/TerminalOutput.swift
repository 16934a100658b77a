import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// What stdout can show: colours only on a terminal and only without `NO_COLOR`
/// (https://no-color.org: set and not empty), a live tail redrawn in place only on a terminal,
/// and the terminal's size.
struct TerminalOutput {
    let isTerminal: Bool
    let colours: Bool
    let columns: Int
    let rows: Int

    static func stdout(environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalOutput {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        var size = winsize()
        let known = isTerminal && ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        return TerminalOutput(
            isTerminal: isTerminal, colours: isTerminal && (environment["NO_COLOR"] ?? "").isEmpty,
            columns: known ? Int(size.ws_col) : 80, rows: known ? Int(size.ws_row) : 24)
    }

    /// The widest line to ask the formatter for: the terminal's width, so that a line takes one
    /// row and the tail can be erased by counting lines; unbounded for a file or a pipe.
    var lineLimit: Int { isTerminal ? max(20, columns - 1) : 1_000_000 }

    /// Writes `control` (cursor movement, as is) then `text` (its styles dropped without colours).
    func write(_ text: String, after control: String = "") {
        StandardStreams.writeOutput((control + (colours ? text : Dialect.unstyled(text))))
    }

    /// Rows a line takes: wide characters (CJK, most emoji) count two columns.
    func rowsTaken(_ line: String) -> Int {
        var width = 0
        for scalar in Dialect.unstyled(line).unicodeScalars {
            switch scalar.value {
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
                0x1F300...0x1FAFF, 0x20000...0x3FFFD:
                width += 2
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F:
                break
            default:
                width += 1
            }
        }
        return max(1, (width + columns - 1) / columns)
    }
}
