import PiRelaySDK

extension TelegramRelay {
    /// `messenger.identity`: `getMe` with the plugin's own token and proxy; the bot's `t.me`
    /// link, and with a pairing code the deep link whose Start button sends `/start CODE`.
    public func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity {
        let me: JSONValue
        do { me = try await api.call("getMe") } catch let error as BotAPIError where error.isUnauthorized {
            throw RemoteError(
                code: .notAuthorized,
                message: "Telegram refused the bot token (401 Unauthorized): it is wrong or was revoked; get the current one from @BotFather (/token)"
            )
        } catch let error as BotAPIError where error.status == 0 {
            throw RemoteError(code: .unavailable, message: "could not reach Telegram at \(config.apiBase): \(error.text)")
        }
        guard let id = TelegramMessage.id(me["id"]), let username = me["username"]?.stringValue else {
            throw RemoteError(code: .internal, message: "getMe gave no bot id or username")
        }
        let link = "https://t.me/\(username)"
        var notes: [String] = []
        if me["can_read_all_group_messages"]?.boolValue != true {
            notes.append("Privacy mode is on (the default): in groups the bot sees commands, mentions and replies to it, which is all it needs.")
        }
        return MessengerIdentity(
            id: id, name: me["first_name"]?.stringValue ?? username, username: username, link: link,
            pairLink: params.pairCode.map { link + "?start=" + $0 }, notes: notes
        )
    }
}
