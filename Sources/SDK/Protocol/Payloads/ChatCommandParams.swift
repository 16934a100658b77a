/// `chat.command`: a slash command or a button press (messenger → supervisor). The answer is a `Reply`.
public struct ChatCommandParams: Sendable, Equatable {
    /// Where it came from.
    public var chat: Chat
    /// `sessions`, `use`, `new`, `stop`, `steer`, `followup`, `compact`, `model`, `status`, `end`,
    /// `to`, `cancel`, `disconnect`, `progress`, `recent`, `summary`, `full`, `pause`, `resume`,
    /// `mentions`, `help` or `action` (docs/PROTOCOL.md §6).
    public var name: String
    /// The command's arguments, by name (`args.session`, `args.text`, `args.id` …).
    public var args: [String: String]

    /// A command.
    public init(chat: Chat, name: String, args: [String: String] = [:]) {
        self.chat = chat
        self.name = name
        self.args = args
    }
}

extension ChatCommandParams: WirePayload {
    /// Reads a command; `chat` and `name` are required. A number or a switch among the arguments
    /// reads as its text (`3`, `true`); other values are dropped.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.command")
        var args: [String: String] = [:]
        for (key, value) in json["args"]?.objectValue ?? [:] {
            switch value {
            case .string(let text): args[key] = text
            case .number: args[key] = value.intValue.map(String.init) ?? value.description
            case .bool(let flag): args[key] = String(flag)
            default: continue
            }
        }
        self.init(chat: try Chat(json: json["chat"] ?? .null), name: try fields.string("name"), args: args)
    }

    /// The params.
    public var json: JSONValue {
        ["chat": chat.json, "name": .string(name), "args": .object(args.mapValues { .string($0) })]
    }
}
