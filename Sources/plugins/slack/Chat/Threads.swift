import Logging
import PiRelaySDK

/// Slack threads for sessions: `/pi new` in a channel opens one (a Reply's `openThread`): a
/// parent message in the channel, its `ts` the thread, bound to the new session with
/// `chat.bind`; so does an agent's `spawn_session` (`chat.thread`). Replies in these threads are
/// for the bot without a mention. Saved, so that still holds after a restart.
actor Threads {
    static let file = "threads.json"

    private let poster: Poster
    private let connection: PluginConnection
    private let store: StateStore
    private let logger: Logger
    private(set) var opened: Set<String>

    init(poster: Poster, connection: PluginConnection, store: StateStore, logger: Logger) {
        self.poster = poster
        self.connection = connection
        self.store = store
        self.logger = logger
        opened = Set(store.load([String].self, from: Self.file) ?? [])
    }

    /// `openThread`: a thread under a new parent message in the chat's channel, bound to the
    /// session. Returns the chat in the thread (the chat itself when Slack refused the thread).
    func open(_ request: Reply.OpenThread, from chat: Chat) async -> Chat {
        var bound = chat
        do {
            let place = try await create(in: chat.channel, name: request.name)
            bound.thread = place.thread
            logger.info("opened thread \(place.key) for session \(request.sessionID)")
        } catch let error as SlackAPIError where Replies.notMember(error) && !chat.dm {
            // `/pi new` in a channel the bot was not invited to: bound there, every answer would
            // be refused. The session goes to the user's DM, which says why.
            do {
                bound.channel = try await poster.dm(with: chat.user)
                bound.dm = true
                try await poster.send(Poster.notInvited(to: chat.channel), to: Place(channel: bound.channel))
            } catch {
                logger.warning("could not open a DM with \(chat.user) for session \(request.sessionID): \(error)")
            }
        } catch {
            logger.warning("could not open a thread for session \(request.sessionID): \(error)")
        }
        do {
            let reply = try await connection.request(.chatBind, ChatBindParams(chat: bound, sessionID: request.sessionID))
            if !reply.text.isEmpty { try await poster.send(SlackText.escaped(reply.text), to: Place(channel: bound.channel, thread: bound.thread)) }
        } catch {
            logger.warning("chat.bind for session \(request.sessionID) failed: \(error)")
        }
        return bound
    }

    /// `chat.thread`: a thread in the target's channel.
    func open(_ request: ChatThreadParams) async throws -> Target {
        do {
            return try await create(in: request.target.channel, name: request.name).target
        } catch {
            throw RemoteError(code: .unavailable, message: "Slack did not take the thread's first message (\(error))")
        }
    }

    private func create(in channel: String, name: String) async throws -> Place {
        let title = name.isEmpty ? "session" : String(name.prefix(150))
        let ts = try await poster.send("🧵 *" + SlackText.escaped(title) + "*: replies in this thread go to the session", to: Place(channel: channel))
        let place = Place(channel: channel, thread: ts)
        opened.insert(place.key)
        await store.save(opened.sorted(), to: Self.file)
        return place
    }
}
