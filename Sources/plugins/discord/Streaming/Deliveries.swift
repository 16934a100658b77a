import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Carries out the supervisor's acknowledged deliveries (`chat.post`, `chat.question.closed`).
/// Returning means Discord accepted everything, and only then does the SDK ack. A delivery that
/// can never succeed (unknown channel, missing permission) is logged and returns as well, or it
/// would come back after every restart; a transient failure throws and the delivery stays queued.
struct Deliveries: Sendable {
    let rest: DiscordREST
    let live: LiveMessages
    let writer: RunWriter
    let parts: DeliveryParts
    let typing: Typing
    let questions: Questions
    let listening: Listening
    let maxUploadBytes: Int
    let logger: Logger

    var poster: Poster { Poster(rest: rest) }

    func post(delivery: String, _ params: ChatPostParams) async throws {
        guard let target = params.target.discord else { throw RemoteError.invalidParams("chat.post needs target.channel (a Discord id)") }
        await listening.bound(target)
        let kind = params.kind
        do {
            switch kind {
            case .final:
                try await final(delivery: delivery, target: target, params)
            case .question:
                try await question(delivery: delivery, target: target, params)
            default:
                var reply = params.reply
                if kind == .echo { reply.text = "▶ USER: " + reply.text }
                let ids = try await poster.post(reply, channel: target.postChannel, nonceBase: delivery, mention: params.mentionUser)
                logger.debug("\(kind.rawValue) posted in \(target.postChannel) as \(ids.count) message(s)")
                let files = uploads(params.files)
                try await upload(files, channel: target.postChannel, delivery: delivery)
                for file in files { unlink(file.path) }
            }
        } catch let error as DiscordAPIError where error.isPermanent {
            logger.error("chat.post \(kind.rawValue) to \(target.postChannel) dropped: \(error)")
            params.files.discard()
        }
    }

    func questionClosed(_ params: QuestionClosedParams) async throws {
        let question = params.questionID
        let key = QuestionChoice.key(session: params.sessionID, question: question)
        let outcome = params.text
        do {
            if let record = await questions.record(key), let message = record.messageID {
                do {
                    try await rest.editMessage(
                        channel: record.channel, message: message,
                        body: QuestionLayout.closed(title: record.title, outcome: outcome), pace: .answer)
                } catch let error as DiscordAPIError where error.code == DiscordAPIError.oldMessageEdits {
                    // A card asked over an hour ago may not be edited now (discord-api.md §6): what
                    // came of it follows as a message; its buttons answer that it is closed.
                    try await poster.post(
                        Reply(text: (record.title + ": " + outcome).markdownEscaped), channel: record.channel, nonceBase: "closed:" + key)
                }
            } else if let target = params.target.discord {
                try await poster.post(Reply(text: outcome.markdownEscaped), channel: target.postChannel, nonceBase: "closed:" + key)
            }
        } catch let error as DiscordAPIError where error.isPermanent {
            logger.warning("closing question \(question): \(error)")
        }
        await questions.remove(key)
    }

    /// `chat.react`: the bot's reaction on a user's message, e.g. the `⏳` of a queued prompt
    /// coming off once pi took it. A message that is gone has nothing to take off.
    func react(_ params: ChatReactParams) async throws {
        guard let target = params.target.discord else { throw RemoteError.invalidParams("chat.react needs target.channel (a Discord id)") }
        do {
            try await rest.react(channel: target.postChannel, message: params.messageID, emoji: params.emoji, remove: params.remove)
        } catch let error as DiscordAPIError where error.isPermanent {
            logger.info("reaction \(params.emoji) on \(params.messageID): \(error)")
        }
    }

    /// The answer (the kit's `FinalAnswer`): the run's live messages become its chunks. The user
    /// to ping is named in the first chunk posted, or in a line after; files ride with the last
    /// chunk when it is posted, else follow it.
    private func final(delivery: String, target: Target, _ params: ChatPostParams) async throws {
        let channel = target.postChannel
        await typing.stop(channel)
        var chunks = params.chunks ?? []
        if chunks.isEmpty, let text = params.text { chunks = TextFit.split(text, limit: Poster.limit) }
        chunks = chunks.map { TextFit.clamp($0, to: Poster.limit) }.filter { !$0.trimmed().isEmpty }
        let files = uploads(params.files)
        let mention = params.mentionUser
        let answer = FinalAnswer(writer: writer.answering(mention: mention, files: files), live: live, parts: parts)
        let outcome = try await answer.post(delivery, runID: params.runID, chunks: chunks, in: Place(channel: channel)) { outcome in
            // The last chunk is posted anew exactly when any is: then the first batch went with it.
            let attached = outcome.posted > 0 ? Self.batches(files).first?.count ?? 0 : 0
            try await upload(Array(files.dropFirst(attached)), channel: channel, delivery: delivery)
            if let user = mention, !(outcome.posted > 0 && RunWriter.mentionFits(chunks[outcome.reused])) {
                try await rest.createMessage(
                    channel: channel, body: Poster.body("<@\(user)> ⬆ done", mention: user), nonce: Nonce.make(delivery, part: "m"), pace: .answer)
            }
        }
        for file in files { unlink(file.path) }
        logger.info(
            """
            final\(params.runID.map { " of run \($0)" } ?? "") in \(channel): \(chunks.count) chunk(s) (\(outcome.reused) from the live view, \
            \(outcome.posted) posted), \(files.count) file(s)
            """)
    }

    private func question(delivery: String, target: Target, _ params: ChatPostParams) async throws {
        guard let question = params.question else { throw RemoteError.invalidParams("chat.post question needs a question") }
        let key = QuestionChoice.key(session: question.sessionID, question: question.id)
        let channel = target.postChannel
        // The agent waits for the user now: "typing…" would say the opposite.
        await typing.stop(channel)
        let body = QuestionLayout.body(question, key: key, now: Date(), mention: params.mentionUser)
        // Saved before posting: a click can arrive before createMessage returns.
        var record = QuestionRecord(
            sessionID: question.sessionID, questionID: question.id, method: question.method, title: question.title,
            options: question.options, channel: channel, messageID: nil, postedAt: Date().timeIntervalSince1970)
        try await questions.save(record, key: key)
        // Posted again with the same nonce if the second save fails and the delivery is retried:
        // Discord gives back the same message.
        record.messageID = try await rest.createMessage(channel: channel, body: body, nonce: Nonce.make(delivery, index: 0), pace: .answer)
        try await questions.save(record, key: key)
        logger.info("question \(question.id) (\(question.method), \(question.options.count) option(s)) posted in \(channel)")
    }

    /// Files after the text, in messages of at most 10 files and 24 MiB.
    private func upload(_ files: [UploadFile], channel: String, delivery: String) async throws {
        for (batchIndex, batch) in Self.batches(files).enumerated() {
            try await rest.createMessage(
                channel: channel, body: Poster.body(""), nonce: Nonce.make(delivery, part: "f\(batchIndex)"), files: batch, pace: .answer)
        }
    }

    static func batches(_ files: [UploadFile]) -> [[UploadFile]] {
        var out: [[UploadFile]] = []
        var current: [UploadFile] = []
        var bytes = 0
        for file in files {
            if current.count == 10 || (bytes + file.size > 24 << 20 && !current.isEmpty) {
                out.append(current)
                current = []
                bytes = 0
            }
            current.append(file)
            bytes += file.size
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// The files of a post that can be uploaded; a missing or oversized file is logged and left out.
    private func uploads(_ posted: [PostedFile]) -> [UploadFile] {
        var files: [UploadFile] = []
        for item in posted {
            let path = item.path
            let name = item.filename
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                logger.warning("chat.post: file \(name) is not there; not uploaded")
                continue
            }
            guard Int(info.st_size) <= maxUploadBytes else {
                logger.warning("chat.post: file \(name) has \(info.st_size) bytes, over Discord's \(maxUploadBytes); not uploaded")
                continue
            }
            files.append(UploadFile(path: path, filename: name, contentType: Self.contentType(name), size: Int(info.st_size)))
        }
        return files
    }

    static func contentType(_ filename: String) -> String {
        switch filename.fileExtension.lowercased() {
        case "md", "markdown": "text/markdown; charset=utf-8"
        case "txt", "log", "diff", "patch": "text/plain; charset=utf-8"
        case "json": "application/json"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "pdf": "application/pdf"
        case "html", "htm": "text/html; charset=utf-8"
        case "csv": "text/csv; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
