/// `sharedRooms` in a messenger's section: the group chats that several machines' bots share,
/// where each daemon answers only for the machine the room picked (docs/MACHINES.md). The same
/// reading serves the supervisor, which decides who answers, and the messenger, which listens
/// there without a mention.
public enum SharedRooms: Sendable, Equatable {
    /// Every group chat (`sharedRooms: all`); a DM never is one.
    case all
    /// The rooms listed by id; none when the key is absent.
    case listed(Set<String>)

    public static let none = SharedRooms.listed([])

    /// From the checked section's value: `"all"`, a list of ids, or nothing.
    public init(_ value: JSONValue?) {
        if value?.stringValue == "all" {
            self = .all
        } else {
            self = .listed(Set((value?.arrayValue ?? []).compactMap { $0.stringValue ?? $0.intValue.map(String.init) }))
        }
    }

    /// Whether the chat `room` (a channel or group id, never a DM) is shared.
    public func contains(_ room: String, dm: Bool) -> Bool {
        guard !dm else { return false }
        switch self {
        case .all: return true
        case .listed(let rooms): return rooms.contains(room)
        }
    }

    public var isEmpty: Bool { self == .none }
}

extension ConfigKey {
    /// The `sharedRooms` key every messenger declares, with its own id form.
    /// `what` names the list in errors ("a list of Telegram chat ids").
    public static func sharedRooms(_ id: ConfigID, what: String) -> ConfigKey {
        ConfigKey(
            "sharedRooms", .allOrList(.id(id), what: what),
            help: "group chats where several machines' bots answer, each for the machine picked with /use: all, or their ids")
    }

    /// `liveIntervalMs`, which every chat messenger declares: the least time between two edits
    /// of a streaming answer; pi-relayd takes it as a floor, and the messenger's own pace (its
    /// send budget) may make it longer.
    public static let liveInterval = ConfigKey(
        "liveIntervalMs", .integer(100...10_000), help: "the least time between two edits of a streaming answer, in milliseconds")
}
