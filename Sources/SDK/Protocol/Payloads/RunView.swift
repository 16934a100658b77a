/// The supervisor's compact record of one agent run, as the formatter receives it (docs/PROTOCOL.md
/// §6, "run view"): the text, tool calls grouped by the assistant message that made them, and
/// notices, in the order the agent produced them.
public struct RunView: Sendable, Equatable {
    /// One entry of the run.
    public enum Item: Sendable, Equatable {
        /// Answer text.
        case text(String)
        /// The model's thinking.
        case thinking(String)
        /// The calls of one assistant message, in call order; they may have run in parallel.
        case tools([ToolCall])
        /// Something that happened to the run.
        case notice(NoticeKind, String)
    }

    /// One tool call in a `tools` item.
    public struct ToolCall: Sendable, Equatable {
        /// pi's id for the call.
        public var id: String
        /// The tool, e.g. `bash`.
        public var name: String
        /// The arguments as the model wrote them.
        public var args: JSONValue
        /// Whether it has finished.
        public var done: Bool
        /// Whether it failed.
        public var isError: Bool
        /// The start of the result text; empty when there is none yet.
        public var output: String
        /// The result's details (`diff` for edit, `exitCode` for bash, …).
        public var details: JSONValue

        /// A tool call.
        public init(
            id: String = "", name: String, args: JSONValue = [:], done: Bool = true, isError: Bool = false, output: String = "",
            details: JSONValue = [:]
        ) {
            self.id = id
            self.name = name
            self.args = args
            self.done = done
            self.isError = isError
            self.output = output
            self.details = details
        }
    }

    /// The session of the run.
    public var sessionID: String?
    /// The session's name.
    public var sessionName: String?
    /// The run's id.
    public var runID: String?
    /// Whether the run has ended.
    public var done: Bool
    /// Everything shown so far.
    public var items: [Item]
    /// `stop`, `length`, `toolUse`, `error` or `aborted`, once known.
    public var stopReason: String?
    /// pi's error, when the run failed.
    public var errorMessage: String?

    /// A run view.
    public init(
        sessionID: String?, sessionName: String?, runID: String?, done: Bool = false, items: [Item] = [], stopReason: String? = nil,
        errorMessage: String? = nil
    ) {
        self.sessionID = sessionID
        self.sessionName = sessionName
        self.runID = runID
        self.done = done
        self.items = items
        self.stopReason = stopReason
        self.errorMessage = errorMessage
    }

    /// The answer's text, without thinking, tool lines or notices.
    public var text: String {
        items.compactMap { item in if case .text(let text) = item { text } else { nil } }.joined(separator: "\n\n")
    }
}

extension RunView: WirePayload {
    /// Reads a run view. Items of an unknown kind are skipped.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "run")
        switch json["items"] {
        case nil, .null?, .array?: break
        default: throw .invalidParams("run.items must be an array")
        }
        let rawItems = fields.array("items")
        var items: [Item] = []
        items.reserveCapacity(rawItems.count)
        for raw in rawItems {
            switch raw["kind"]?.stringValue {
            case "text": items.append(.text(raw["text"]?.stringValue ?? ""))
            case "thinking": items.append(.thinking(raw["text"]?.stringValue ?? ""))
            case "tools": items.append(.tools((raw["calls"]?.arrayValue ?? []).map(ToolCall.init(json:))))
            case "notice": items.append(.notice(NoticeKind(wireName: raw["notice"]?.stringValue ?? "info"), raw["text"]?.stringValue ?? ""))
            default: continue
            }
        }
        self.init(
            sessionID: fields.optionalString("sessionId"), sessionName: fields.optionalString("sessionName"), runID: fields.optionalString("runId"),
            done: fields.bool("done", default: false), items: items, stopReason: fields.optionalString("stopReason"),
            errorMessage: fields.optionalString("errorMessage"))
    }

    /// The run view; absent fields are left out.
    public var json: JSONValue {
        var list: [JSONValue] = []
        list.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .text(let text): list.append(["kind": "text", "text": .string(text)])
            case .thinking(let text): list.append(["kind": "thinking", "text": .string(text)])
            case .notice(let kind, let text): list.append(["kind": "notice", "notice": .string(kind.wireName), "text": .string(text)])
            case .tools(let calls): list.append(["kind": "tools", "calls": .array(calls.map(\.json))])
            }
        }
        var object: JSONValue = ["done": .bool(done), "items": .array(list)]
        object["sessionId"] = sessionID.map { .string($0) }
        object["sessionName"] = sessionName.map { .string($0) }
        object["runId"] = runID.map { .string($0) }
        object["stopReason"] = stopReason.map { .string($0) }
        object["errorMessage"] = errorMessage.map { .string($0) }
        return object
    }
}

extension RunView.ToolCall {
    /// Reads a call leniently: a missing name is `tool`, a missing `done` is true.
    public init(json: JSONValue) {
        self.init(
            id: json["id"]?.stringValue ?? "", name: json["name"]?.stringValue ?? "tool", args: json["args"] ?? [:],
            done: json["done"]?.boolValue ?? true, isError: json["isError"]?.boolValue ?? false, output: json["output"]?.stringValue ?? "",
            details: json["details"] ?? [:])
    }

    /// The call; an empty output is left out.
    public var json: JSONValue {
        var object: JSONValue = [
            "id": .string(id), "name": .string(name), "args": args, "done": .bool(done), "isError": .bool(isError), "details": details,
        ]
        if !output.isEmpty { object["output"] = .string(output) }
        return object
    }
}
