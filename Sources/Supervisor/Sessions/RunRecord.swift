import PiRelaySDK

/// The supervisor's record of one agent run as it grows: the run view the formatter renders
/// (docs/PROTOCOL.md, "run view"), and a revision that says whether it changed. It never holds
/// pi's big partial-message payloads.
package struct RunRecord: Sendable {
    package typealias Item = RunView.Item
    package typealias ToolCall = RunView.ToolCall

    package let sessionID: String
    package let runID: String
    /// What the formatter gets.
    package private(set) var view: RunView
    package var sessionName: String {
        get { view.sessionName ?? "" }
        set { view.sessionName = newValue }
    }
    package var items: [Item] { view.items }
    package var done: Bool { view.done }
    package var stopReason: String? {
        get { view.stopReason }
        set { view.stopReason = newValue }
    }
    package var errorMessage: String? {
        get { view.errorMessage }
        set { view.errorMessage = newValue }
    }
    /// Tokens and cost so far (not part of the view: the formatter does not show them).
    package private(set) var usage = RunUsage()
    /// Bumped on every change, so a watcher can tell whether to re-render.
    package private(set) var revision = 0
    private var messageOpen = false
    /// The text items the current assistant message's deltas made, in order.
    private var messageTextItems: [Int] = []
    private var textBytes = 0
    package static let maxTextBytes = 2 << 20

    package init(sessionID: String, sessionName: String, runID: String) {
        self.sessionID = sessionID
        self.runID = runID
        view = RunView(sessionID: sessionID, sessionName: sessionName, runID: runID)
    }

    /// A new assistant message starts: its text and its tool calls get their own items.
    package mutating func assistantMessageStarted() {
        messageOpen = false
        messageTextItems = []
    }

    /// The assistant message ended with `final`, its text blocks joined. Deltas do not always
    /// rebuild a block (the pi extension spec's §11 trap 18: a provider may replace or skip
    /// them), so the message's text becomes what pi says it was.
    package mutating func assistantMessageEnded(text final: String?) {
        defer { messageTextItems = [] }
        guard let final, textBytes < Self.maxTextBytes else { return }
        let built = messageTextItems.map { index -> String in
            if case .text(let text) = view.items[index] { return text }
            return ""
        }
        guard built.joined() != final else { return }
        revision += 1
        textBytes += final.utf8.count
        guard let first = messageTextItems.first else {
            if !final.isEmpty { view.items.append(.text(final)) }
            messageOpen = false
            return
        }
        view.items[first] = .text(final)
        for index in messageTextItems.dropFirst().reversed() { view.items.remove(at: index) }
    }

    package mutating func appendText(_ delta: String) {
        append(delta, thinking: false)
    }

    package mutating func appendThinking(_ delta: String) {
        append(delta, thinking: true)
    }

    private mutating func append(_ delta: String, thinking: Bool) {
        guard textBytes < Self.maxTextBytes else { return }
        textBytes += delta.utf8.count
        let piece = textBytes >= Self.maxTextBytes ? delta + "\n[… output truncated by pi-relayd]" : delta
        revision += 1
        if messageOpen, let last = view.items.indices.last {
            // The text is taken out of the item before it grows, so the append happens in place
            // (amortised O(delta)) unless someone still holds an older view of the run.
            switch (view.items[last], thinking) {
            case (.text(var text), false):
                view.items[last] = .text("")
                text += piece
                view.items[last] = .text(text)
                return
            case (.thinking(var text), true):
                view.items[last] = .thinking("")
                text += piece
                view.items[last] = .thinking(text)
                return
            default: break
            }
        }
        view.items.append(thinking ? .thinking(piece) : .text(piece))
        if !thinking { messageTextItems.append(view.items.count - 1) }
        messageOpen = true
    }

    package mutating func toolStarted(id: String, name: String, args: JSONValue) {
        revision += 1
        if messageOpen, case .tools(var calls) = view.items.last {
            calls.append(ToolCall(id: id, name: name, args: args, done: false))
            view.items[view.items.count - 1] = .tools(calls)
        } else {
            view.items.append(.tools([ToolCall(id: id, name: name, args: args, done: false)]))
        }
        messageOpen = true
    }

    package mutating func toolUpdated(id: String, output: String?) {
        update(id) { if let output { $0.output = output } }
    }

    package mutating func toolEnded(id: String, isError: Bool, output: String?, diff: String?, exitCode: Int?) {
        update(id) {
            $0.done = true
            $0.isError = isError
            if let output { $0.output = output }
            var details: JSONValue = [:]
            details["diff"] = diff.map { .string($0) }
            details["exitCode"] = exitCode.map { JSONValue($0) }
            $0.details = details
        }
    }

    private mutating func update(_ id: String, _ change: (inout ToolCall) -> Void) {
        for index in view.items.indices.reversed() {
            guard case .tools(var calls) = view.items[index], let call = calls.firstIndex(where: { $0.id == id }) else { continue }
            change(&calls[call])
            view.items[index] = .tools(calls)
            revision += 1
            return
        }
    }

    package mutating func notice(_ kind: String, _ text: String) {
        revision += 1
        view.items.append(.notice(NoticeKind(wireName: kind), text))
        messageOpen = false
    }

    package mutating func addUsage(_ reported: JSONValue) {
        usage.add(reported)
    }

    package mutating func finish(stopReason: String?, errorMessage: String?) {
        view.done = true
        if let stopReason { view.stopReason = stopReason }
        if let errorMessage { view.errorMessage = errorMessage }
        revision += 1
    }

    /// The answer's text, without thinking or tool lines.
    package var text: String { view.text }
}
