import PiRelaySDK

extension TelegramRelay {
    /// `messenger.identity`: `getMe` with the plugin's own token and proxy; the bot's `t.me`
    /// link, and with a pairing code the deep link whose Start button sends `/start CODE`.
    public func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity {
        let me = try await signIn()
        guard let id = TelegramMessage.id(me["id"]), let username = me["username"]?.stringValue else {
            throw RemoteError(code: .internal, message: "getMe gave no bot id or username")
        }
        let link = "https://t.me/\(username)"
        var notes: [String] = []
        var problems: [String] = []
        if me["can_read_all_group_messages"]?.boolValue != true {
            if !config.settings.requireMention {
                // Privacy mode keeps plain group messages from the bot (telegram-bot-api.md §13):
                // a group meant to listen without mentions would hear nothing.
                problems.append(
                    "telegram.requireMention is false, but privacy mode is on: in a group where it is no admin the bot gets only "
                        + "commands and replies to it, never a plain message. Turn it off in @BotFather (/setprivacy → Disable), then "
                        + "remove the bot from each group and add it again (Telegram applies it on joining), or make it an admin there.")
            }
            if config.settings.sharedRooms.isEmpty {
                if config.settings.requireMention {
                    notes.append(
                        "Privacy mode is on (the default): in groups the bot sees commands, mentions and replies to it, which is all it needs.")
                }
            } else {
                notes.append(Self.sharedRoomNeeds)
                if params.checkSetup { problems += await sharedRoomProblems(bot: id) }
            }
        }
        return MessengerIdentity(
            id: id, name: me["first_name"]?.stringValue ?? username, username: username, link: link,
            pairLink: params.pairCode.map { link + "?start=" + $0 }, notes: notes, problems: problems
        )
    }

    /// `getMe` with the plugin's own token: who the bot is. A refused token and a Telegram not
    /// reached are said as `messenger.identity` answers them; the relay's start ends not
    /// configured on the first.
    func signIn() async throws -> JSONValue {
        try await BotAPIError.signingIn(service: "Telegram", base: config.settings.apiBase) { [api] _ in
            api.tokenRefused
        } _: {
            try await api.call("getMe")
        }
    }

    /// With privacy mode on, a group's bot misses plain messages, and bare commands unless it
    /// was the last bot to post there (telegram-bot-api.md §13): a shared room needs them all.
    static let sharedRoomNeeds =
        "Privacy mode is on: a shared room (telegram.sharedRooms) needs the bot to read every message. Turn it off "
        + "(@BotFather → /setprivacy → Disable, then remove the bot from each shared group and add it again), "
        + "or make the bot an admin of each shared group."

    /// `doctor`: each listed shared room where the bot is no admin (so privacy mode hides
    /// messages from it there); with `sharedRooms: all` the groups are not known, so it is said
    /// once.
    private func sharedRoomProblems(bot: String) async -> [String] {
        guard case .listed(let rooms) = config.settings.sharedRooms else { return [Self.sharedRoomNeeds] }
        var problems: [String] = []
        for room in rooms.sorted() {
            let status: String
            do {
                status = try await api.call("getChatMember", ["chat_id": .string(room), "user_id": .string(bot)])["status"]?.stringValue ?? "?"
            } catch {
                problems.append("shared room \(room): cannot ask Telegram whether the bot is an admin there (\(error)). \(Self.sharedRoomNeeds)")
                continue
            }
            if status != "administrator" && status != "creator" {
                problems.append("shared room \(room): the bot is no admin there (\(status)). \(Self.sharedRoomNeeds)")
            }
        }
        return problems
    }
}
