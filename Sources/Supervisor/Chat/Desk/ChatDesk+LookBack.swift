import FoundationEssentials
import PiRelaySDK

/// `/recent`, `/summary`, `/full` and the buttons under a long answer: looking back at what a
/// session did, from what the supervisor recorded (no model call).
extension ChatDesk {
    package static let recentDefault = 10
    package static let recentRange = 1...50

    package func runLookBack(_ command: ChatCommand, chat: Chat, session: PiSession) async throws -> Reply {
        let name = await session.name
        switch command {
        case .recent(let count):
            let wanted = count ?? Self.recentDefault
            guard Self.recentRange.contains(wanted) else {
                throw RemoteError.invalidParams(
                    "/recent takes a number of lines from \(Self.recentRange.lowerBound) to \(Self.recentRange.upperBound)")
            }
            let lines = await session.activity.last(wanted)
            if lines.isEmpty { return Reply("Nothing has happened in \(name) yet.", ephemeral: true) }
            let text = "Recent in \(name):\n" + lines.map { "\(Self.clock($0.time)) \($0.text)" }.joined(separator: "\n")
            return Reply(await delivery.redacted(text), ephemeral: true)
        case .summary:
            guard let last = await session.recentRuns.last else { return Reply("No run of \(name) has ended yet.", ephemeral: true) }
            return Reply(await delivery.redacted(RunSummary(run: last).text), ephemeral: true)
        case .full:
            guard let last = await session.recentRuns.last else { return Reply("No run of \(name) has ended yet.", ephemeral: true) }
            let count = await delivery.showFull(last.run, to: await bindings.replyBinding(chat, sessionID: session.id))
            return Reply("The last answer of \(name), in \(count) message\(count == 1 ? "" : "s").", ephemeral: true)
        default:
            throw RemoteError.invalidParams("not a look-back command")
        }
    }

    /// **Show in chat** (`full:chat:RUN`) and **Download .md** (`full:md:RUN`).
    package func fullAnswerButton(_ how: String, runID: String, chat: Chat) async throws -> Reply {
        guard let dash = runID.lastIndex(of: "-"), let session = await sessions.session(id: String(runID[..<dash])) else {
            return Reply("That session is gone.", ephemeral: true)
        }
        guard let finished = await session.recentRuns.last(where: { $0.run.runID == runID }) else {
            return Reply("That answer is no longer kept (the last \(PiSession.recentRunsKept) runs are).", ephemeral: true)
        }
        let binding = await bindings.replyBinding(chat, sessionID: session.id)
        switch how {
        case "chat":
            let count = await delivery.showFull(finished.run, to: binding)
            return Reply("Shown in \(count) message\(count == 1 ? "" : "s").", ephemeral: true)
        case "md":
            return Reply("Sending \(try await delivery.sendAnswerFile(finished.run, to: binding)).", ephemeral: true)
        default:
            return Reply("Unknown action.", ephemeral: true)
        }
    }

    /// `HH:MM` in UTC, from the ISO 8601 form.
    package static func clock(_ time: Date) -> String {
        let text = ISO8601.string(time)
        guard text.count >= 16 else { return text }
        return String(text.dropFirst(11).prefix(5))
    }
}
