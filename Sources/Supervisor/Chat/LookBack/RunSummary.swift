import PiRelaySDK

/// A short account of a finished run, built from its record alone (no model call): how long it
/// took, the tools it used, the files it wrote or edited, the commands that failed, tokens and
/// cost, and how it ended. Plain text (commands and paths in backticks), unmasked: callers mask it on its way out.
package struct RunSummary {
    package let run: FinishedRun

    package var text: String {
        let record = run.run
        var lines = ["\(record.sessionName) · \(Self.duration(run.duration)) · \(ending)"]
        let calls = record.items.flatMap { item -> [RunView.ToolCall] in if case .tools(let calls) = item { calls } else { [] } }
        if calls.isEmpty {
            lines.append("Tools: none")
        } else {
            var counts: [(String, Int)] = []
            for call in calls {
                if let index = counts.firstIndex(where: { $0.0 == call.name }) { counts[index].1 += 1 } else { counts.append((call.name, 1)) }
            }
            let listed = counts.map { $0.1 > 1 ? "\($0.0) ×\($0.1)" : $0.0 }.joined(separator: ", ")
            lines.append("Tools: \(calls.count) call\(calls.count == 1 ? "" : "s") (\(listed))")
        }
        var files: [String] = []
        for call in calls where (call.name == "write" || call.name == "edit") && !call.isError {
            if let path = call.args["path"]?.stringValue ?? call.args["file_path"]?.stringValue, !files.contains(path) { files.append(path) }
        }
        if !files.isEmpty { lines.append("Files written or edited: " + files.map { "`\($0)`" }.joined(separator: ", ")) }
        let failed = calls.filter(\.isError).map { call -> String in
            if call.name == "bash", let command = call.args["command"]?.stringValue {
                let code = (call.details["exitCode"]?.intValue ?? Self.exitCode(in: call.output)).map { " (exit \($0))" } ?? ""
                return "`\(command.count > 80 ? String(command.prefix(79)) + "…" : command)`\(code)"
            }
            return call.name
        }
        if !failed.isEmpty { lines.append("Failed: " + failed.joined(separator: ", ")) }
        let usage = record.usage
        if usage.messages > 0 {
            lines.append(
                "Tokens: \(usage.total) (in \(usage.input), out \(usage.output), cache \(usage.cacheRead + usage.cacheWrite)) · cost $\(usage.cost.fixedPoint(4))"
            )
        } else {
            lines.append("Tokens: not reported")
        }
        return lines.joined(separator: "\n")
    }

    /// How the run ended, in words.
    package var ending: String {
        let record = run.run
        switch record.stopReason {
        case "aborted": return "stopped"
        case "error": return "failed" + (record.errorMessage.map { ": " + Self.oneLine($0) } ?? "")
        case "length": return "cut off (the model's length limit)"
        default: return "done"
        }
    }

    /// pi reports a failed command in its output's last line: `Command exited with code 2`.
    package static func exitCode(in output: String) -> Int? {
        guard let last = output.split(whereSeparator: \.isNewline).last, let range = last.firstRange(of: "exited with code ") else { return nil }
        return Int(last[range.upperBound...].prefix { $0.isNumber })
    }

    package static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 160 ? String(flat.prefix(159)) + "…" : flat
    }

    /// `4 s`, `2 min 5 s`, `1 h 3 min`.
    package static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return seconds < 10 ? "\(seconds.fixedPoint(1)) s" : "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \((whole % 3600) / 60) min"
    }
}
