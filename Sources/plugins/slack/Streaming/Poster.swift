import FoundationEssentials
import MessengerKit
import PiRelaySDK

/// Posts, edits and uploads. Text always goes as `text` (the whole message, and the fallback
/// when there are blocks); an edit of a message Slack no longer has, or cannot be edited,
/// becomes a new message; an ephemeral to someone not in the channel goes to their DM.
struct Poster: Sendable {
    let api: WebAPI

    /// Posts a message; returns its `ts`. `priority` is its place in the channel's send queue;
    /// a live post names its run's final (`replaces`), which may take its place while it waits.
    @discardableResult
    func send(
        _ mrkdwn: String, to place: Place, blocks: JSONValue? = nil, priority: SendPriority = .notice, replaces: String? = nil
    ) async throws -> String {
        var args = place.args(["text": .string(mrkdwn), "unfurl_links": false, "unfurl_media": false])
        if let blocks { args["blocks"] = blocks }
        let answer = try await api.call("chat.postMessage", args, channel: place.channel, priority: priority, replaces: replaces)
        // Only a write that gave way answers nothing (`WebAPI.call`).
        if answer == .null, replaces != nil { throw LiveEditSuperseded() }
        guard let ts = answer["ts"]?.stringValue else { throw SlackAPIError(method: "chat.postMessage", status: 200, error: "no ts in the answer") }
        return ts
    }

    /// Replaces a message's text; `blocks` nil removes its blocks (buttons go with them), as
    /// Slack does. Returns the message's `ts`: a new one when the old message could not be edited.
    /// A live edit (`priority` `.live`) still waiting gives way to a newer edit of the message.
    @discardableResult
    func edit(_ ts: String, in place: Place, to mrkdwn: String, blocks: JSONValue? = nil, priority: SendPriority = .notice) async throws -> String {
        var args: JSONValue = ["channel": .string(place.channel), "ts": .string(ts), "text": .string(mrkdwn)]
        args["blocks"] = blocks ?? []
        do {
            let answer = try await api.call(
                "chat.update", args, channel: place.channel, priority: priority, replaces: priority == .live ? Self.liveEdit(ts, in: place) : nil)
            // Only a write that gave way answers nothing (`WebAPI.call`).
            if answer == .null { throw LiveEditSuperseded() }
            return ts
        } catch let error as SlackAPIError where ["message_not_found", "cant_update_message", "edit_window_closed"].contains(error.error) {
            return try await send(mrkdwn, to: place, blocks: blocks, priority: priority)
        }
    }

    /// What a live edit of `ts` names as the write it replaces while it waits.
    static func liveEdit(_ ts: String, in place: Place) -> String { place.channel + "/" + ts }

    /// A live post naming `post`, and live edits of `edits`, still waiting for their place are
    /// not sent (a final replaces them).
    func dropWaitingWrites(post: String, edits: [String], in place: Place) async {
        if let key = MethodPacer.key(method: "chat.postMessage", channel: place.channel) {
            await api.queue.supersede(chat: key, replaces: post)
        }
        guard let key = MethodPacer.key(method: "chat.update", channel: place.channel) else { return }
        for ts in edits { await api.queue.supersede(chat: key, replaces: Self.liveEdit(ts, in: place)) }
    }

    /// Deletes one of the bot's messages; one already gone counts as deleted.
    func delete(_ ts: String, in place: Place, priority: SendPriority = .notice) async throws {
        do {
            try await api.call("chat.delete", ["channel": .string(place.channel), "ts": .string(ts)], channel: place.channel, priority: priority)
        } catch let error as SlackAPIError where error.error == "message_not_found" {}
    }

    /// A message only `user` sees; in their DM when they are not in the channel.
    func ephemeral(_ mrkdwn: String, to user: String, in place: Place, blocks: JSONValue? = nil) async throws {
        var args = place.args(["user": .string(user), "text": .string(mrkdwn)])
        if let blocks { args["blocks"] = blocks }
        do {
            try await api.call("chat.postEphemeral", args)
        } catch let error as SlackAPIError where error.error == "user_not_in_channel" || error.error == "channel_not_found" {
            try await direct(mrkdwn, to: user, blocks: blocks)
        }
    }

    /// A message in `user`'s DM with the bot, which the bot may always open.
    func direct(_ mrkdwn: String, to user: String, blocks: JSONValue? = nil) async throws {
        try await send(mrkdwn, to: Place(channel: try await dm(with: user)), blocks: blocks)
    }

    /// The id of `user`'s DM with the bot (`conversations.open`).
    func dm(with user: String) async throws -> String {
        let dm = try await api.call("conversations.open", ["users": .string(user)])
        guard let channel = dm["channel"]?["id"]?.stringValue else {
            throw SlackAPIError(method: "conversations.open", status: 200, error: "no channel id in the answer")
        }
        return channel
    }

    /// What a user who used `/pi` in a channel the bot was not invited to reads in the DM.
    static func notInvited(to channel: String) -> String {
        "I am not a member of <#\(channel)>, so I answer here. Invite me there (`/invite` and my name, in <#\(channel)>) to use me in the channel."
    }

    /// A reaction on a message; one already there (or already gone) is what we wanted.
    func react(_ name: String, on ts: String, in channel: String, add: Bool) async throws {
        do {
            try await api.call(
                add ? "reactions.add" : "reactions.remove", ["channel": .string(channel), "timestamp": .string(ts), "name": .string(name)])
        } catch let error as SlackAPIError where error.error == "already_reacted" || error.error == "no_reaction" {}
    }

    /// Uploads a file with Slack's two steps (`files.getUploadURLExternal`, the bytes, then
    /// `files.completeUploadExternal` once), shared into the place as a message.
    func upload(path: String, filename: String, title: String? = nil, to place: Place) async throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SlackAPIError(method: "upload", status: 0, error: "cannot read \(filename)")
        }
        guard !data.isEmpty else { return }
        let ticket = try await api.call("files.getUploadURLExternal", ["filename": .string(filename), "length": JSONValue(data.count)], form: true)
        guard let url = ticket["upload_url"]?.stringValue, let id = ticket["file_id"]?.stringValue else {
            throw SlackAPIError(method: "files.getUploadURLExternal", status: 200, error: "no upload_url or file_id in the answer")
        }
        try await api.upload(bytes: [UInt8](data), to: url)
        var args: JSONValue = ["files": [["id": .string(id), "title": .string(title ?? filename)]], "channel_id": .string(place.channel)]
        if let thread = place.thread { args["thread_ts"] = .string(thread) }
        try await api.call("files.completeUploadExternal", args)
    }
}
