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
            let phraseBytes = Array(phrase.utf8)
            var start = 0
            while start + phraseBytes.count <= lower.count {
                defer { start += 1 }
                guard lower[start] == phraseBytes[0], lower[start..<(start + phraseBytes.count)].elementsEqual(phraseBytes) else { continue }
                var cursor = start + phraseBytes.count
                while cursor < lower.count, lower[cursor] == UInt8(ascii: " ") || lower[cursor] == UInt8(ascii: ":") { cursor += 1 }
                var value = 0, digits = 0
                while cursor < lower.count, lower[cursor] >= 0x30, lower[cursor] <= 0x39, digits < 6 {
                    value = value * 10 + Int(lower[cursor] - 0x30)
                    digits += 1
                    cursor += 1
                }
                if digits > 0, last.map({ $0.at < start }) ?? true { last = (start, value) }
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
