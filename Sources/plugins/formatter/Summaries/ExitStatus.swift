/// What a failed bash call's output says about how it ended.
enum ExitStatus: Equatable {
    case code(Int)
    case timedOut

    /// Reads the last "exit code N", "exited with code N" or "exit status N" in the output
    /// (pi appends "Command exited with code N"), else a "timed out" message. Nil when neither.
    init?(output: String) {
        let lower = Array(output.lowercased().utf8)
        var last: (at: Int, code: Int)?
        for phrase in ["exit code", "exited with code", "exit status"] {
            let p = Array(phrase.utf8)
            var i = 0
            while i + p.count <= lower.count {
                defer { i += 1 }
                guard lower[i] == p[0], lower[i..<(i + p.count)].elementsEqual(p) else { continue }
                var j = i + p.count
                while j < lower.count, lower[j] == UInt8(ascii: " ") || lower[j] == UInt8(ascii: ":") { j += 1 }
                var value = 0, digits = 0
                while j < lower.count, lower[j] >= 0x30, lower[j] <= 0x39, digits < 6 {
                    value = value * 10 + Int(lower[j] - 0x30)
                    digits += 1
                    j += 1
                }
                if digits > 0, last.map({ $0.at < i }) ?? true { last = (i, value) }
            }
        }
        if let last {
            self = .code(last.code)
        } else if output.lowercased().contains("timed out") {
            self = .timedOut
        } else {
            return nil
        }
    }
}
