/// The machines the chats of a shared messenger picked (`/use desktop web`), kept in the
/// federation's database: `federation.pick` stores one (`picks` holds it), and `federation.picks`
/// answers them all for a machine that has just taken the bot, so every chat goes on talking to
/// the machine it picked.
public struct ChatPicks: Sendable, Equatable {
    /// The messenger plugin (`telegram`).
    public var messenger: String
    /// Chat key → machine.
    public var picks: [String: String]

    public init(messenger: String, picks: [String: String] = [:]) {
        self.messenger = messenger
        self.picks = picks
    }
}

extension ChatPicks: WirePayload {
    /// Reads it; `messenger` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "picks")
        var picks: [String: String] = [:]
        for (chat, machine) in json["picks"]?.objectValue ?? [:] { picks[chat] = machine.stringValue }
        self.init(messenger: try fields.string("messenger"), picks: picks)
    }

    /// `{messenger, picks: {chat: machine}}`.
    public var json: JSONValue { ["messenger": .string(messenger), "picks": .object(picks.mapValues { .string($0) })] }
}
