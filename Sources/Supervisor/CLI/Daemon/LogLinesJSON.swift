import PiRelaySDK
import Supervisor
import SupervisorIO

/// `logs --json`: each whole log line as `{"line": "..."}`, one JSON object a line. A line the
/// log writer has not finished yet is held until its LF arrives (`logs --follow`).
struct LogLinesJSON {
    private var pending: [UInt8] = []

    mutating func lines(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        guard let lastLF = pending.lastIndex(of: 0x0A) else { return [] }
        var out: [UInt8] = []
        for line in pending[..<lastLF].split(separator: 0x0A, omittingEmptySubsequences: true) {
            JSONValue.object(["line": .string(String(decoding: line, as: UTF8.self))]).write(to: &out)
            out.append(0x0A)
        }
        pending.removeSubrange(...lastLF)
        return out
    }
}
