import PiRelaySDK
import Supervisor
import SupervisorIO

/// Shows runs as they happen in a terminal (`send --wait`, `stream --pretty`), rendered by the
/// formatter in its `ansi` dialect: each finished line is printed once, and on a terminal the
/// part still growing (the live tail) is drawn below them and redrawn in place as it changes.
/// Where stdout is a file or a pipe only finished lines are written, so the output is the run's
/// text, line by line, with no escapes.
final class RunPrinter {
    private let formatter: PluginClient
    private let output: TerminalOutput
    /// Lines printed so far of the run being shown.
    private var printed: (runID: String, lines: Int)?
    private var finished: Set<String> = []
    /// The tail on screen, to erase before anything else is written.
    private var tail: [String] = []
    private var tailRows = 0

    init(formatter: PluginClient, output: TerminalOutput) {
        self.formatter = formatter
        self.output = output
    }

    /// Shows a state of a run; a view of a run already shown finished is ignored.
    func show(_ run: RunView) async throws {
        let runID = run.runID ?? ""
        guard !finished.contains(runID) else { return }
        let live = try await formatter.request(.formatLive, FormatRunParams(run: run, limit: output.lineLimit, dialect: .ansi))
        var already = 0
        if let printed, printed.runID == runID {
            already = printed.lines
        } else if printed != nil {
            // A new run under the previous one: a blank line between them.
            above(["\n"])
        }
        let fresh = live.chunks.dropFirst(already).map { $0 + "\n" }
        printed = (runID, max(already, live.chunks.count))
        if run.done {
            finished.insert(runID)
            redraw(fresh, tail: live.tail.isEmpty ? [] : [live.tail + "\n"])
            tail = []
            tailRows = 0
        } else {
            redraw(fresh, tail: output.isTerminal && !live.tail.isEmpty ? [live.tail + "\n"] : [])
        }
    }

    /// A question from the agent, with how to answer it from here.
    func showQuestion(_ question: JSONValue, session: String) async throws {
        let id = question["id"]?.stringValue ?? "?"
        var text = question["title"]?.stringValue ?? "Question"
        if let message = question["message"]?.stringValue, !message.isEmpty { text += " — " + message }
        let options = (question["options"]?.arrayValue ?? []).compactMap(\.stringValue)
        if !options.isEmpty { text += " — " + options.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: " · ") }
        let line = try await formatter.request(.formatNotice, FormatNoticeParams(notice: .question, text: text, dialect: .ansi)).text
        let how: String
        switch question["method"]?.stringValue {
        case "confirm": how = "yes|no"
        case "select": how = "NUMBER|TEXT"
        default: how = "TEXT"
        }
        let hint = "\u{1B}[2m   answer: pi-relayd answer \(Dialect.ansi.escape(session)) \(String(id.prefix(8))) \(how)\u{1B}[0m"
        above([line + "\n", hint + "\n"])
    }

    /// Something that happened to the session, as a notice line.
    func showNotice(_ kind: NoticeKind, _ text: String) async throws {
        let line = try await formatter.request(.formatNotice, FormatNoticeParams(notice: kind, text: text, dialect: .ansi)).text
        above([line + "\n"])
    }

    /// Writes `lines` above the tail, which stays at the bottom.
    private func above(_ lines: [String]) {
        redraw(lines, tail: tail)
    }

    /// Erases the tail on screen, writes `lines`, then draws `newTail` (at most a screen of it,
    /// its newest rows).
    private func redraw(_ lines: [String], tail newTail: [String]) {
        let erase = tailRows > 0 ? "\u{1B}[\(tailRows)A\r\u{1B}[J" : ""
        var text = lines.joined()
        var shown = newTail.joined().split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        var rows = shown.reduce(0) { $0 + output.rowsTaken($1) }
        while rows > max(1, output.rows - 2), !shown.isEmpty { rows -= output.rowsTaken(shown.removeFirst()) }
        text += shown.map { $0 + "\n" }.joined()
        tail = newTail
        tailRows = output.isTerminal ? rows : 0
        if !text.isEmpty || !erase.isEmpty { output.write(text, after: erase) }
    }
}
