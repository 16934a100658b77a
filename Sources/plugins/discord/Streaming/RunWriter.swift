import Logging
import MessengerKit
import PiRelaySDK

/// Writes a run's messages for the kit's `LiveMessages` and `FinalAnswer`: live views and final
/// chunks in the channel's send queue, nobody pinged unless named. A live message is posted under
/// a nonce made from its run and place in it, and so is a final chunk that takes its place: a
/// message posted just before a crash, and never recorded, is handed back by Discord and edited,
/// not posted twice. For a final answer (`answering`) it also carries who to ping, and the files
/// to attach to the last chunk.
struct RunWriter: FinalWriter {
    let rest: DiscordREST
    let logger: Logger
    /// The user to ping in the first chunk the answer posts (when it fits there).
    var mention: String?
    /// Attached to the answer's last chunk when that chunk is posted anew.
    var files: [UploadFile] = []

    /// The same writer for one final answer.
    func answering(mention: String?, files: [UploadFile]) -> RunWriter {
        RunWriter(rest: rest, logger: logger, mention: mention, files: files)
    }

    /// The nonce of a run's `index`th message in `channel`.
    static func nonce(run: String, channel: String, index: Int) -> String {
        Nonce.make("live:" + run + "@" + channel, index: index)
    }

    /// Whether a mention fits in front of `chunk`.
    static func mentionFits(_ chunk: String) -> Bool { TextFit.length(chunk) + 25 <= Poster.limit }

    static func content(_ text: String) -> JSONValue {
        [
            "content": .string(TextFit.clamp(text, to: Poster.limit)), "allowed_mentions": Poster.allowedMentions(nil),
            "flags": JSONValue(Poster.suppressEmbeds),
        ]
    }

    func sendLive(_ text: String, to place: Place, slot: LiveSlot) async throws -> String {
        try await post(
            text, mention: nil, in: place, nonce: Self.nonce(run: slot.run, channel: place.channel, index: slot.index),
            pace: SendPace.live.replacing(LiveSlot.waiting(run: slot.run, in: place))
        ).id
    }

    /// One over an hour old, in a thread someone closed, or deleted by a user, goes on as a new
    /// message (`replaced`): taken as shown, the deleted one's text was lost from the answer. Any
    /// other refusal (no permission) ends the view (`givesUp`): each would be another invalid
    /// request towards Discord's ban (discord-api.md §6), and the final is posted on its own.
    func editLive(_ id: String, in place: Place, to text: String) async throws -> String? {
        do {
            let sent = try await rest.editMessage(channel: place.channel, message: id, body: Self.content(text), pace: SendPace.live.replacing(id))
            if !sent { throw LiveEditSuperseded() }
        } catch let error as DiscordAPIError where Self.goesOnAnew(error) || error.code == DiscordAPIError.unknownMessage {
            return try await replaced(id, in: place, by: text, part: "l", pace: .live, because: error)
        }
        return nil
    }

    /// Edits Discord refuses where a post goes: a message over an hour old, which a channel may
    /// edit only a few times a minute (discord-api.md §6: "post a new message instead"), and one
    /// in a thread someone closed, which a post opens again ("Post in thread"; edits there are
    /// 50083). Dropped as permanent, a final answer was lost with them.
    static func goesOnAnew(_ error: DiscordAPIError) -> Bool {
        error.code == DiscordAPIError.oldMessageEdits || error.code == DiscordAPIError.archivedThread
    }

    /// A live message Discord will not edit (`goesOnAnew`): its text goes in a new message, and
    /// the old one is deleted (deletes have limits of their own), so the view reads once.
    private func replaced(
        _ id: String, in place: Place, by text: String, part: String, pace: SendPace, because error: DiscordAPIError
    ) async throws
        -> String
    {
        logger.info("live message \(id) in \(place.channel) cannot be edited (\(error)); it goes on in a new message")
        let new = try await rest.createMessage(
            channel: place.channel, body: Self.content(text), nonce: Nonce.make("replaces " + id, part: part), pace: pace)
        do { try await rest.deleteMessage(channel: place.channel, message: id) } catch {
            logger.debug("deleting the old live message \(id): \(error)")
        }
        return new
    }

    /// The bot may not post in the channel (or it is gone): the view stops until the final.
    func givesUp(after error: any Error) -> Bool {
        (error as? DiscordAPIError)?.isPermanent == true
    }

    func sendFinal(_ chunk: String, to place: Place, part: FinalPart) async throws {
        var text = chunk
        var pinged: String?
        if part.firstPosted, let user = mention, Self.mentionFits(chunk) {
            text = "<@\(user)> " + chunk
            pinged = user
        }
        let batch = part.isLast ? Deliveries.batches(files).first ?? [] : []
        guard let runID = part.runID, batch.isEmpty else {
            try await rest.createMessage(
                channel: place.channel, body: Poster.body(text, mention: pinged), nonce: Nonce.make(part.delivery, index: part.index), files: batch,
                pace: .answer)
            return
        }
        let posted = try await post(
            text, mention: pinged, in: place, nonce: Self.nonce(run: runID, channel: place.channel, index: part.index), pace: .answer)
        if posted.broughtUpToDate, let pinged {
            // The live view had posted this message: an edit pings nobody, so the ping follows.
            try await rest.createMessage(
                channel: place.channel, body: Poster.body("<@\(pinged)> ⬆ done", mention: pinged), nonce: Nonce.make(part.delivery, part: "m"),
                pace: .answer)
        }
    }

    func finalTakesOver(run: String, messages: [String], in place: Place) async {
        await rest.dropWaitingWrites(channel: place.channel, post: LiveSlot.waiting(run: run, in: place), edits: messages)
    }

    /// A live message someone deleted (Unknown Message) is replaced by a new one: dropped as a
    /// permanent error, the answer would be lost with it.
    func editFinal(_ id: String, in place: Place, to chunk: String) async throws {
        do {
            try await rest.editMessage(channel: place.channel, message: id, body: Self.content(chunk), pace: .answer)
        } catch let error as DiscordAPIError where error.code == DiscordAPIError.unknownMessage {
            logger.info("live message \(id) in \(place.channel) is gone; its part of the answer goes in a new message")
            try await rest.createMessage(
                channel: place.channel, body: Poster.body(chunk), nonce: Nonce.make("replaces " + id, part: "f"), pace: .answer)
        } catch let error as DiscordAPIError where Self.goesOnAnew(error) {
            _ = try await replaced(id, in: place, by: chunk, part: "f", pace: .answer, because: error)
        }
    }

    /// A surplus live message that is already gone stays gone.
    func deleteLive(_ id: String, in place: Place) async throws {
        do { try await rest.deleteMessage(channel: place.channel, message: id) } catch let error as DiscordAPIError where error.isPermanent {
            logger.debug("deleting a surplus live message: \(error)")
        }
    }

    /// Posts `text` under `nonce` and returns its id. A message Discord hands back for the nonce
    /// (posted before a crash) that shows something else is brought up to date (without the
    /// mention, which an edit would not ping anyway).
    private func post(
        _ text: String, mention: String?, in place: Place, nonce: String, pace: SendPace
    ) async throws -> (
        id: String, broughtUpToDate: Bool
    ) {
        let posted = try await rest.createMessageOrFindRepeat(
            channel: place.channel, body: Poster.body(text, mention: mention), nonce: nonce, pace: pace)
        guard posted.content != TextFit.clamp(text, to: Poster.limit) else { return (posted.id, false) }
        let shown = mention.map { String(text.dropFirst("<@\($0)> ".count)) } ?? text
        try await rest.editMessage(channel: place.channel, message: posted.id, body: Self.content(shown), pace: pace)
        return (posted.id, true)
    }
}
