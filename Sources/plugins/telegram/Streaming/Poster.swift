import FoundationEssentials
import MessengerKit
import PiRelaySDK

/// Sends and edits messages: HTML first, plain text if Telegram cannot parse it (a bug of ours,
/// but the user still gets the words), an edit that changes nothing counted as done, and a
/// chat that blocked the bot noted instead of retried forever: nothing more is sent there
/// (another request would only meet the 403 again) until it writes to the bot.
struct Poster: Sendable {
    let api: BotAPI
    let blocked: BlockedChats
    let migrations: Migrations

    /// Sends one message; returns its id. `keyboard` is an `inline_keyboard` (rows of buttons);
    /// `pace`: how it waits for the chat's budget (a notice unless said otherwise).
    @discardableResult
    func send(_ html: String, to asked: Place, keyboard: JSONValue? = nil, quiet: Bool = false, pace: SendPace = .notice) async throws -> Int {
        var place = asked
        place.chatID = await migrations.current(asked.chatID)
        try await refuseIfBlocked(place)
        let id: Int
        do {
            id = try await sendOnce(html, to: place, keyboard: keyboard, quiet: quiet, pace: pace)
        } catch let error as BotAPIError where error.migrateTo != nil {
            // A group upgraded to a supergroup: its new id from now on.
            await migrations.moved(place.chatID, to: error.migrateTo!)
            place.chatID = error.migrateTo!
            id = try await sendOnce(html, to: place, keyboard: keyboard, quiet: quiet, pace: pace.again)
        }
        await migrations.posted(id, in: place.chatID, askedFor: asked.chatID)
        return id
    }

    private func sendOnce(_ html: String, to place: Place, keyboard: JSONValue?, quiet: Bool, pace: SendPace) async throws -> Int {
        var params = place.params(["text": .string(html), "parse_mode": "HTML", "link_preview_options": ["is_disabled": true]])
        if let keyboard { params["reply_markup"] = ["inline_keyboard": keyboard] }
        if quiet { params["disable_notification"] = true }
        do {
            return try await messageID(api.call("sendMessage", params, chat: place.chatID, pace: pace))
        } catch let error as BotAPIError where error.isUnparsableHTML {
            params["text"] = .string(TelegramText.plain(html))
            params["parse_mode"] = nil
            return try await messageID(api.call("sendMessage", params, chat: place.chatID, pace: pace.again))
        } catch let error as BotAPIError where error.isForbidden {
            await blocked.block(place.chatID, reason: error.text)
            throw error
        }
    }

    /// Edits a message's text. Leaving out `keyboard` removes its buttons, as Telegram does. A
    /// newer edit of the same message replaces this one while both wait for the chat's budget.
    /// Returns the id of the message that shows the text: a new one when the old is gone (in a
    /// private chat either side may delete any message), sent as Telegram's guide says.
    @discardableResult
    func edit(
        _ messageID: Int, in asked: Place, to html: String, keyboard: JSONValue? = nil, quiet: Bool = false, pace wanted: SendPace = .notice
    ) async throws -> Int {
        if await migrations.isLeftBehind(messageID, askedFor: asked.chatID) {
            return try await send(html, to: asked, keyboard: keyboard, quiet: quiet, pace: wanted)
        }
        var place = asked
        place.chatID = await migrations.current(asked.chatID)
        try await refuseIfBlocked(place)
        var params: JSONValue = [
            "chat_id": .string(place.chatID), "message_id": JSONValue(messageID), "text": .string(html), "parse_mode": "HTML",
            "link_preview_options": ["is_disabled": true],
        ]
        if let keyboard { params["reply_markup"] = ["inline_keyboard": keyboard] }
        var pace = wanted
        pace.replaces = "\(place.chatID):\(messageID)"
        do {
            try await api.call("editMessageText", params, chat: place.chatID, pace: pace)
        } catch let error as BotAPIError where error.isNotModified {
            return messageID
        } catch let error as BotAPIError where error.isUneditable {
            return try await send(html, to: place, keyboard: keyboard, quiet: quiet, pace: wanted.again)
        } catch let error as BotAPIError where error.migrateTo != nil {
            // The group became a supergroup while the edit waited its turn: the message is in the
            // old chat, which takes nothing more, so the text goes to the new one. Thrown as
            // permanent, it dropped the final answer.
            await migrations.moved(place.chatID, to: error.migrateTo!)
            return try await send(html, to: asked, keyboard: keyboard, quiet: quiet, pace: wanted.again)
        } catch let error as BotAPIError where error.isUnparsableHTML {
            params["text"] = .string(TelegramText.plain(html))
            params["parse_mode"] = nil
            do {
                try await api.call("editMessageText", params, chat: place.chatID, pace: pace.again)
            } catch let error as BotAPIError where error.isNotModified {}
        }
        return messageID
    }

    /// Deletes one of the bot's messages.
    func delete(_ messageID: Int, in asked: Place, pace: SendPace = .notice) async throws {
        let chatID = await migrations.current(asked.chatID)
        try await api.call("deleteMessage", ["chat_id": .string(chatID), "message_id": JSONValue(messageID)], chat: chatID, pace: pace)
    }

    /// Uploads a file: an image that fits as a photo (shown inline), anything else, or an image
    /// Telegram will not take as a photo, as a document (the bytes kept as they are).
    func upload(path: String, filename: String, caption: String?, to asked: Place, pace: SendPace = .notice) async throws {
        var place = asked
        place.chatID = await migrations.current(asked.chatID)
        try await refuseIfBlocked(place)
        var fields: [String: String] = ["chat_id": place.chatID]
        if let topic = place.topicID { fields["message_thread_id"] = String(topic) }
        if let caption, !caption.isEmpty {
            fields["caption"] = String(String.UnicodeScalarView(caption.unicodeScalars.prefix(1000)))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt).map { Int($0) } ?? 0
        let ext = filename.fileExtension.lowercased()
        if ["jpg", "jpeg", "png", "webp", "gif"].contains(ext), size > 0, size <= 10 << 20 {
            do {
                try await api.upload("sendPhoto", fields: fields, part: "photo", path: path, filename: filename, chat: place.chatID, pace: pace)
                return
            } catch let error as BotAPIError where error.status == 400 {
                // Not an image Telegram can show (too wide, not really a PNG...): as a document.
            }
        }
        try await api.upload("sendDocument", fields: fields, part: "document", path: path, filename: filename, chat: place.chatID, pace: pace.again)
    }

    private func refuseIfBlocked(_ place: Place) async throws {
        guard await blocked.isBlocked(place.chatID) else { return }
        throw BotAPIError(method: "send", status: 403, text: "the chat blocked the bot (not sent)")
    }

    private func messageID(_ result: JSONValue) throws -> Int {
        guard let id = result["message_id"]?.intValue else {
            throw BotAPIError(method: "sendMessage", status: 200, text: "no message_id in the answer")
        }
        return id
    }
}
