import Logging
import PiRelaySDK

/// A Reply's `openThread`: a public thread in the guild channel (in a DM, where there are no
/// threads, the DM itself), then `chat.bind` so the supervisor binds the session there, and the
/// bind's reply posted in the new place.
struct ThreadOpener: Sendable {
    let rest: DiscordREST
    let connection: PluginConnection
    let listening: Listening
    let logger: Logger

    func open(_ open: Reply.OpenThread, from chat: Chat, nonceBase: String) async {
        let poster = Poster(rest: rest)
        var place = chat
        if !chat.dm {
            do {
                let thread = try await rest.createThread(channel: chat.channel, name: open.name)
                await listening.bound(Target(channel: chat.channel, thread: thread))
                place.thread = thread
                logger.info("opened thread \(thread) in \(chat.channel) for session \(open.sessionID)")
            } catch {
                logger.warning("could not open a thread for session \(open.sessionID): \(error)")
                _ = try? await poster.post(
                    Reply(text: "⚠️ Could not open a thread here (\(Self.short(error))); use /use \(open.name) where you want it."),
                    channel: chat.postChannel, nonceBase: nonceBase + ":fail")
                return
            }
        }
        do {
            let reply = try await connection.request(.chatBind, ChatBindParams(chat: place, sessionID: open.sessionID))
            if !reply.isEmpty { try await poster.post(reply, channel: place.postChannel, nonceBase: nonceBase + ":bind") }
        } catch {
            logger.warning("chat.bind for session \(open.sessionID) failed: \(error)")
            _ = try? await poster.post(
                Reply(text: "⚠️ Could not bind this thread to the session (\(Self.short(error)))."),
                channel: place.postChannel, nonceBase: nonceBase + ":bindfail")
        }
    }

    /// `chat.thread`: a public thread in the target's channel (the parent, when the asking chat
    /// is a thread: threads do not nest), listened to from now on. A DM has no threads: Discord
    /// refuses, and the error's text goes back to the supervisor, which falls back.
    func open(_ request: ChatThreadParams) async throws -> Target {
        let thread: String
        do {
            thread = try await rest.createThread(channel: request.target.channel, name: request.name)
        } catch {
            throw RemoteError(code: .unavailable, message: "Discord did not open a thread here (\(Self.short(error)))")
        }
        let place = Target(channel: request.target.channel, thread: thread)
        await listening.bound(place)
        logger.info("opened thread \(thread) in \(request.target.channel) for spawned session \(request.sessionID)")
        return place
    }

    static func short(_ error: any Error) -> String {
        if let apiError = error as? DiscordAPIError { return apiError.code.map { "Discord error \($0)" } ?? "HTTP \(apiError.status)" }
        if let remote = error as? RemoteError { return remote.code.rawValue }
        return "error"
    }
}
