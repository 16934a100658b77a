import FoundationEssentials
import PiRelaySDK

/// `/progress`, `/pause`, `/resume` and `/mentions`: what this chat is sent, kept per chat.
extension ChatDesk {
    package func runPreference(_ command: ChatCommand, chat: Chat, session: PiSession?) async throws -> Reply {
        switch command {
        case .progress(let word):
            guard let word else {
                let mode = await preferences.progress(chat.key)
                let choices = ProgressMode.allCases.map { "• \($0.rawValue): \($0.explanation)" }.joined(separator: "\n")
                return Reply("Progress here: \(mode.rawValue). /progress MODE to change it:\n\(choices)", ephemeral: true)
            }
            guard let mode = ProgressMode(rawValue: word.lowercased()) else {
                throw RemoteError.invalidParams("/progress takes quiet, normal, verbose or completion-only")
            }
            await preferences.setProgress(mode, for: chat.key)
            await delivery.viewsWanted(by: chat.key)
            return Reply("Progress here is now \(mode.rawValue): \(mode.explanation).", ephemeral: true)
        case .pause:
            guard await preferences.pause(chat.key) else {
                return Reply("This chat is paused already. /resume to hear from it again.", ephemeral: true)
            }
            let name = await session?.name ?? "the session"
            return Reply("Paused: nothing from \(name) reaches this chat, and prompts here are refused, until /resume.", ephemeral: true)
        case .resume:
            guard let since = await preferences.resume(chat.key) else { return Reply("This chat is not paused.", ephemeral: true) }
            await delivery.viewsWanted(by: chat.key)
            guard let session else { return Reply("Resumed.", ephemeral: true) }
            return Reply(await delivery.redacted(await missedSummary(session, since: since, chat: chat)), ephemeral: true)
        case .mentions(let word):
            guard let word else {
                let on = await preferences.mentions(chat.key)
                return Reply("Mentions here are \(on ? "on" : "off"). /mentions on|off to change it.", ephemeral: true)
            }
            let on: Bool
            switch word.lowercased() {
            case "on", "yes", "true": on = true
            case "off", "no", "false": on = false
            default: throw RemoteError.invalidParams("/mentions takes on or off")
            }
            await preferences.setMentions(on, for: chat.key)
            return Reply(
                on
                    ? "Mentions on: whoever asked is pinged when the agent waits for an answer and when a long run ends."
                    : "Mentions off: nobody is pinged here.", ephemeral: true)
        default:
            throw RemoteError.invalidParams("not a preference command")
        }
    }

    /// What `/resume` shows: a `/summary` of each run that ended while the chat was paused, the
    /// run still going, and the questions still open (asked again in the chat).
    private func missedSummary(_ session: PiSession, since: Date, chat: Chat) async -> String {
        let name = await session.name
        let missed = await session.recentRuns.filter { $0.endedAt >= since }
        var parts = ["Resumed \(name)."]
        if missed.isEmpty {
            parts.append("No run ended while this chat was paused.")
        } else {
            parts.append("While paused, \(missed.count == 1 ? "a run" : "\(missed.count) runs") ended:")
            parts += missed.map { RunSummary(run: $0).text }
            if missed.count == PiSession.recentRunsKept { parts.append("(the last \(PiSession.recentRunsKept) are kept; older ones are not shown)") }
            parts.append("/full shows the last answer.")
        }
        if await session.state == .busy { parts.append("\(name) is working on a run now.") }
        let open = await session.openQuestions
        if !open.isEmpty {
            parts.append("\(open.count) question(s) wait for an answer; they are asked here again.")
            await delivery.askAgain(open, in: session.id, chatKey: chat.key)
        }
        return parts.joined(separator: "\n\n")
    }
}
