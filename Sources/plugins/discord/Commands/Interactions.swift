import DiscordPayloads
import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Slash commands and component clicks: allowlist, then `chat.command` / `chat.answer`, answered
/// within Discord's 3 s. The supervisor gets 1.5 s to reply (then the answer is the message
/// itself); past that the interaction is deferred and the original response edited later.
struct Interactions: Sendable {
    let rest: DiscordREST
    let connection: PluginConnection
    let listening: Listening
    let allowlist: Allowlist
    let questions: Questions
    let threads: ThreadOpener
    let logger: Logger
    var answerWithin: Duration = .milliseconds(1500)

    func handle(_ interaction: Interaction) async {
        // A click made while the plugin was down comes back in a resume's replay; Discord has
        // already told the user it failed, and acting on it now would surprise them.
        if let made = Snowflake.date(interaction.id), Date().timeIntervalSince(made) > 10 {
            logger.info("interaction \(interaction.id) is \(Int(Date().timeIntervalSince(made))) s old; skipped")
            return
        }
        // Another machine sharing the token answers here: leave it to that one (the first
        // answer to an interaction wins, and a second would be refused).
        guard await listening.policy?.answersInteraction(in: interaction.channelID, isDM: interaction.isDM) ?? false else {
            logger.debug("interaction \(interaction.id) in \(interaction.channelID) is another machine's")
            return
        }
        switch interaction.type {
        case 2: await command(interaction)
        case 3: await component(interaction)
        default: logger.debug("interaction \(interaction.id) of type \(interaction.type) ignored")
        }
    }

    private func command(_ interaction: Interaction) async {
        guard allowlist.permits(interaction.userID) else { return await refuse(interaction) }
        guard let name = interaction.commandName, let command = SlashCommand.named(name) else {
            return await callback(interaction, ["type": 4, "data": Self.data(Reply(text: "Unknown command."), ephemeral: true)])
        }
        let chat = Chat(interaction)
        logger.info("/\(name) from \(interaction.userName) in \(chat.postChannel)")
        await respond(interaction, chat: chat, deferEphemeral: command.ephemeral, component: false, binds: name == "use") {
            try await connection.request(.chatCommand, ChatCommandParams(chat: chat, name: name, args: interaction.options))
        }
    }

    private func component(_ interaction: Interaction) async {
        guard allowlist.permits(interaction.userID) else { return await refuse(interaction) }
        guard let custom = interaction.customID else { return }
        let chat = Chat(interaction)
        let picked = interaction.values.first
        if let choice = QuestionChoice(customID: custom) ?? picked.flatMap({ QuestionChoice(customID: $0) }) {
            return await answer(interaction, chat: chat, choice: choice)
        }
        let action = custom.hasPrefix(Poster.actionMenuPrefix) ? (picked ?? "") : custom
        guard !action.isEmpty else { return }
        logger.info("button \(action) from \(interaction.userName) in \(chat.postChannel)")
        await respond(interaction, chat: chat, deferEphemeral: true, component: true, binds: action.hasPrefix("use:")) {
            try await ButtonPress.action(id: action).request(from: chat, over: connection)
        }
    }

    private func answer(_ interaction: Interaction, chat: Chat, choice: QuestionChoice) async {
        guard let record = await questions.record(choice.key) else {
            return await callback(interaction, ["type": 4, "data": Self.data(Reply(text: "This question is no longer open."), ephemeral: true)])
        }
        var params = ChatAnswerParams(chat: chat, sessionID: record.sessionID, questionID: record.questionID)
        guard choice.choice.answer(&params, options: record.options) != nil else { return }
        logger.info("answer to question \(record.questionID) from \(interaction.userName)")
        let answer = params
        await respond(interaction, chat: chat, deferEphemeral: true, component: true) {
            try await ButtonPress.answer(answer).request(from: chat, over: connection)
        }
    }

    private func refuse(_ interaction: Interaction) async {
        logger.notice("refused an interaction from user \(interaction.userID) (\(interaction.userName)): not in the allowlist")
        await callback(interaction, ["type": 4, "data": Self.data(Reply(text: "Not authorized."), ephemeral: true)])
    }

    /// Answers with the supervisor's reply if it comes within `answerWithin`, else defers (type 5)
    /// and edits the original response when it comes.
    /// `binds`: a `/use` (or its button) that succeeded in a guild channel makes the bot listen
    /// there, as it does in a configured channel, without waiting for its first post.
    private func respond(
        _ interaction: Interaction, chat: Chat, deferEphemeral: Bool, component: Bool, binds: Bool = false,
        _ call: @escaping @Sendable () async throws -> Reply
    ) async {
        // Unstructured on purpose: the supervisor call outlives the race against the deadline.
        let pending = Task { () -> Result<Reply, RemoteError> in
            do { return .success(try await call()) } catch let error as RemoteError { return .failure(error) } catch {
                return .failure(RemoteError(code: .internal, message: "\(error)"))
            }
        }
        let outcome: Result<Reply, RemoteError>
        // A reply longer than a message (`/recent 50`, a long `/sessions`): the rest follows.
        var rest: [Reply] = []
        if let early = await FirstOf.value(of: pending, within: answerWithin) {
            outcome = early
            await listenIfBound(early, chat: chat, binds: binds)
            switch early {
            case .success(let reply) where component && reply.isEmpty:
                await callback(interaction, ["type": 6])
            case .success(let reply):
                let parts = Self.parts(reply)
                rest = Array(parts.dropFirst())
                await callback(interaction, ["type": 4, "data": Self.data(parts[0], ephemeral: reply.ephemeral)])
            case .failure(let error):
                await callback(interaction, ["type": 4, "data": Self.data(Reply(failed: error), ephemeral: true)])
            }
        } else {
            await callback(interaction, ["type": 5, "data": ["flags": deferEphemeral ? 64 : 0]])
            outcome = await pending.value
            await listenIfBound(outcome, chat: chat, binds: binds)
            do {
                switch outcome {
                case .success(let reply) where reply.isEmpty && component:
                    try await self.rest.deleteOriginal(application: await application(of: interaction), token: interaction.token)
                case .success(let reply):
                    let parts = Self.parts(reply)
                    rest = Array(parts.dropFirst())
                    try await self.rest.editOriginal(
                        application: await application(of: interaction), token: interaction.token, body: Self.edit(parts[0]))
                case .failure(let error):
                    try await self.rest.editOriginal(
                        application: await application(of: interaction), token: interaction.token, body: Self.edit(Reply(failed: error)))
                }
            } catch {
                logger.warning("interaction \(interaction.id): editing the deferred response failed: \(error)")
            }
        }
        for part in rest {
            let body = Self.data(part, ephemeral: part.ephemeral)
            do { try await self.rest.followUp(application: await application(of: interaction), token: interaction.token, body: body) } catch {
                logger.warning("interaction \(interaction.id): a follow-up of the answer failed: \(error)")
                break
            }
        }
        if case .success(let reply) = outcome, let open = reply.openThread {
            await threads.open(open, from: chat, nonceBase: "thread:" + interaction.id)
        }
    }

    /// Listens in the channel before the reply is shown: the user may write there as soon as
    /// they see it.
    private func listenIfBound(_ outcome: Result<Reply, RemoteError>, chat: Chat, binds: Bool) async {
        if case .success = outcome, binds, !chat.dm { await listening.bound(chat.target) }
    }

    private func callback(_ interaction: Interaction, _ body: JSONValue) async {
        do {
            try await rest.interactionCallback(id: interaction.id, token: interaction.token, body: body)
        } catch {
            logger.warning("interaction \(interaction.id): answering failed: \(error)")
        }
    }

    private func application(of interaction: Interaction) async -> String {
        interaction.applicationID.isEmpty ? (await listening.applicationID ?? "") : interaction.applicationID
    }

    /// The reply in messages that fit: its text cut at lines (`TextFit.split`), its buttons under
    /// the last.
    static func parts(_ reply: Reply) -> [Reply] {
        let texts = TextFit.split(reply.text, limit: Poster.limit)
        guard texts.count > 1 else { return [reply] }
        return texts.enumerated().map { index, text in
            var part = reply
            part.text = text
            if index < texts.count - 1 { part.actions = [] }
            return part
        }
    }

    /// An interaction response message (callback type 4 `data`).
    static func data(_ reply: Reply, ephemeral: Bool) -> JSONValue {
        var body = edit(reply)
        if ephemeral { body["flags"] = JSONValue(Poster.suppressEmbeds | 64) }
        return body
    }

    /// A webhook edit body: text, buttons, no pings.
    static func edit(_ reply: Reply) -> JSONValue {
        let components = ComponentLayout.components(reply.actions.map { $0.map(ButtonSpec.init) }, menuPrefix: Poster.actionMenuPrefix)
        let text = reply.text.isEmpty && components.isEmpty ? "Done." : reply.text
        var body: JSONValue = [
            "allowed_mentions": Poster.allowedMentions(nil), "components": .array(components), "flags": JSONValue(Poster.suppressEmbeds),
        ]
        if !text.isEmpty { body["content"] = .string(TextFit.clamp(text, to: Poster.limit)) }
        return body
    }
}
