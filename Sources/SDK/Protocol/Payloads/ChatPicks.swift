/// The machines the chats of a shared messenger picked (`/use desktop web`), kept in the
/// federation's database: `federation.pick` stores one (`picks` holds it), and `federation.picks`
/// answers them all for a machine that has just taken the bot, so every chat goes on talking to
/// the machine it picked.
public struct ChatPicks: Sendable, Equatable {
    /// The messenger plugin (`telegram`).
    public var messenger: String
    /// Chat key → machine.
    public var picks: [String: String]
    /// When the chat picked (seconds since 1970), for `federation.pick`: a pick the outbox held
    /// through a plugin restart is as old as it is, not as old as its delivery.
    public var madeAt: Double?

    public init(messenger: String, picks: [String: String] = [:], madeAt: Double? = nil) {
        self.messenger = messenger
        self.picks = picks
        self.madeAt = madeAt
    }
}

extension ChatPicks: WirePayload {
    /// Reads it; `messenger` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "picks")
        var picks: [String: String] = [:]
        for (chat, machine) in json["picks"]?.objectValue ?? [:] { picks[chat] = machine.stringValue }
        self.init(messenger: try fields.string("messenger"), picks: picks, madeAt: json["madeAt"]?.doubleValue)
    }

    /// `{messenger, picks: {chat: machine}, madeAt?}`.
    public var json: JSONValue {
        var object: JSONValue = ["messenger": .string(messenger), "picks": .object(picks.mapValues { .string($0) })]
        if let madeAt { object["madeAt"] = .number(madeAt) }
        return object
    }
}
