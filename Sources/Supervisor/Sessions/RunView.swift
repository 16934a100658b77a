import PiRelaySDK

/// The supervisor's compact record of one agent run: the text so far, tool calls grouped by the
/// assistant message that made them, and notices. This is what the formatter renders (see
/// docs/PROTOCOL.md, "run view"); it never holds pi's big partial-message payloads.
struct RunView: Sendable {
    enum Item: Sendable {
        case text(String)
        case thinking(String)
        case tools([ToolCall])
        case notice(kind: String, text: String)
    }

    struct ToolCall: Sendable {
        var id: String
        var name: String
        var args: JSONValue
        var done = false
        var isError = false
        var output: String?
        var diff: String?
        var exitCode: Int?
    }

    let sessionID: String
    var sessionName: String
    let runID: String
    var items: [Item] = []
    var done = false
    var stopReason: String?
    var errorMessage: String?
    /// Bumped on every change, so a watcher can tell whether to re-render.
    private(set) var revision = 0
    private var messageOpen = false
    private var textBytes = 0
    static let maxTextBytes = 2 << 20

    init(sessionID: String, sessionName: String, runID: String) {
        self.sessionID = sessionID
        self.sessionName = sessionName
        self.runID = runID
    }

    /// A new assistant message starts: its text and its tool calls get their own items.
    mutating func assistantMessageStarted() {
        messageOpen = false
    }

    mutating func appendText(_ delta: String) {
        append(delta, thinking: false)
    }

    mutating func appendThinking(_ delta: String) {
        append(delta, thinking: true)
    }

    private mutating func append(_ delta: String, thinking: Bool) {
        guard textBytes < Self.maxTextBytes else { return }
        textBytes += delta.utf8.count
        let piece = textBytes >= Self.maxTextBytes ? delta + "\n[… output truncated by pi-relayd]" : delta
        revision += 1
        if messageOpen, let last = items.last {
            switch (last, thinking) {
            case (.text(let t), false): items[items.count - 1] = .text(t + piece); return
            case (.thinking(let t), true): items[items.count - 1] = .thinking(t + piece); return
            default: break
            }
        }
        items.append(thinking ? .thinking(piece) : .text(piece))
        messageOpen = true
    }

    mutating func toolStarted(id: String, name: String, args: JSONValue) {
        revision += 1
        if messageOpen, case .tools(var calls) = items.last {
            calls.append(ToolCall(id: id, name: name, args: args))
            items[items.count - 1] = .tools(calls)
        } else {
            items.append(.tools([ToolCall(id: id, name: name, args: args)]))
        }
        messageOpen = true
    }

    mutating func toolUpdated(id: String, output: String?) {
        update(id) { if let output { $0.output = output } }
    }

    mutating func toolEnded(id: String, isError: Bool, output: String?, diff: String?, exitCode: Int?) {
        update(id) {
            $0.done = true
            $0.isError = isError
            if let output { $0.output = output }
            $0.diff = diff
            $0.exitCode = exitCode
        }
    }

    private mutating func update(_ id: String, _ change: (inout ToolCall) -> Void) {
        for i in items.indices.reversed() {
            guard case .tools(var calls) = items[i], let k = calls.firstIndex(where: { $0.id == id }) else { continue }
            change(&calls[k])
            items[i] = .tools(calls)
            revision += 1
            return
        }
    }

    mutating func notice(_ kind: String, _ text: String) {
        revision += 1
        items.append(.notice(kind: kind, text: text))
        messageOpen = false
    }

    mutating func finish(stopReason: String?, errorMessage: String?) {
        done = true
        if let stopReason { self.stopReason = stopReason }
        if let errorMessage { self.errorMessage = errorMessage }
        revision += 1
    }

    /// The answer's text, without thinking or tool lines.
    var text: String {
        items.compactMap { if case .text(let t) = $0 { return t } else { return nil } }.joined(separator: "\n\n")
    }

    var json: JSONValue {
        var list: [JSONValue] = []
        for item in items {
            switch item {
            case .text(let t): list.append(["kind": "text", "text": .string(t)])
            case .thinking(let t): list.append(["kind": "thinking", "text": .string(t)])
            case .notice(let k, let t): list.append(["kind": "notice", "notice": .string(k), "text": .string(t)])
            case .tools(let calls):
                list.append([
                    "kind": "tools",
                    "calls": .array(
                        calls.map { c in
                            var o: JSONValue = [
                                "id": .string(c.id), "name": .string(c.name), "args": c.args,
                                "done": .bool(c.done), "isError": .bool(c.isError),
                            ]
                            if let out = c.output { o["output"] = .string(out) }
                            var details: JSONValue = [:]
                            if let d = c.diff { details["diff"] = .string(d) }
                            if let e = c.exitCode { details["exitCode"] = JSONValue(e) }
                            o["details"] = details
                            return o
                        }),
                ])
            }
        }
        var o: JSONValue = [
            "sessionId": .string(sessionID), "sessionName": .string(sessionName), "runId": .string(runID),
            "done": .bool(done), "items": .array(list),
        ]
        if let stopReason { o["stopReason"] = .string(stopReason) }
        if let errorMessage { o["errorMessage"] = .string(errorMessage) }
        return o
    }
}
