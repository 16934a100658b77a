import FoundationEssentials
import PiRelaySDK

/// Sends prompts to sessions for chats and the control socket alike, and shows each to the other
/// chats watching (through the session observer, as a `promptEcho`).
package struct PromptSender: Sendable {
    /// `prompt`'s `streamingBehavior` when the agent is busy: `followUp` or `steer`.
    package var busyBehavior: String
    package let observer: any SessionObserver
    package let metrics: RelayMetrics
    /// `sessions.limits.queueMax`: prompts that may wait in a busy session; 0 is no bound.
    package var queueMax = 0
    /// `sessions.limits.onMessage: newConversation`: a chat's prompt to an idle session of
    /// ours starts a new conversation first.
    package var freshPerMessage = false

    /// Where a prompt from a chat came from, for the metrics.
    package struct Arrival: Sendable {
        package let messenger: String
        package let at: ContinuousClock.Instant
    }

    /// Sends a prompt, steer or follow-up. A prompt always carries `streamingBehavior`, so a busy
    /// agent queues it instead of refusing it. Other chats are shown `echo` (default: the text).
    package func prompt(
        _ session: PiSession, kind: PromptKind, text: String, images: [JSONValue], origin: String,
        echo: String? = nil, arrival: Arrival? = nil, fresh: Bool = false
    ) async throws -> PromptOutcome {
        try await session.ensureRunning()
        // A spawned pi's compaction: the prompt goes once it is over (a terminal's extension
        // holds its own, docs/EXTENSION.md).
        if session.terminal == nil { try await session.untilCompacted() }
        let command: PiCommand
        let busy = PiStreamingBehavior(rawValue: busyBehavior) ?? .followUp
        // pi-rpc spec §5: `steer` and `follow_up` sent to an idle pi only wait in its queue for a
        // run nobody starts; `prompt` with that streamingBehavior queues the same when pi is busy
        // and runs when it is idle. A terminal's extension takes steer and follow-up as they are.
        let spawned = session.terminal == nil
        // pi extension spec §11 trap 11: a steer pi finds queued when a tool call's dialog returns
        // makes it skip the call, approved or not. While a spawned pi's dialog is open (which
        // tool call it holds cannot be told), a steer waits as a follow-up and the chat is told,
        // as a terminal's extension does.
        let steering = kind == .steer || (kind == .send && busy == .steer)
        let heldBack = spawned && steering ? !(await session.openQuestions.isEmpty) : false
        switch kind {
        case .steer where spawned: command = .prompt(message: text, images: images, streamingBehavior: heldBack ? .followUp : .steer)
        case .followUp where spawned: command = .prompt(message: text, images: images, streamingBehavior: .followUp)
        case .steer: command = .steer(message: text, images: images)
        case .followUp: command = .followUp(message: text, images: images)
        case .send: command = .prompt(message: text, images: images, streamingBehavior: heldBack ? .followUp : busy)
        }
        let mayStartRun = kind == .send || spawned
        // Busy, or a prompt sent a moment ago is about to start its run (pi-rpc spec §5): this
        // one then waits behind it. Asked, and for a prompt that starts a run noted, in one step
        // (its run cannot start before it is written, and may start before pi's answer is read).
        // A fresh conversation per chat message: not a terminal's pi (its conversation is the
        // person's at the desk), and a busy session's prompt waits behind the run, in its own.
        let wasBusy =
            fresh && freshPerMessage && kind == .send && session.terminal == nil
            ? try await session.promptSendingFresh(text) : await session.promptSending(text, starting: mayStartRun)
        let startsRun = mayStartRun && !wasBusy
        if wasBusy, queueMax > 0 {
            // pi's own count of the messages queued behind the run: what is really waiting.
            let state = try await session.command(.getState)
            let waiting = (try? state.data?.parse())?["pendingMessageCount"]?.intValue ?? 0
            if waiting >= queueMax { throw QueueFull(session: await session.name, waiting: waiting) }
        }
        // A gate asks the chat whose prompt is running; a follow-up queued behind it waits its turn.
        if !wasBusy || kind == .steer { await session.notePromptOrigin(origin) }
        // Noted with its chat before pi can take it: noted after pi's answer, pi's user message
        // for it could come first, and the run it joins would keep the other chat's gates.
        let queuesNow = wasBusy && (heldBack || kind == .followUp || (kind == .send && busy != .steer)) && !Self.isSlash(text)
        if queuesNow { await session.notePromptQueued(text, origin: origin) }
        // The hop ends where the prompt is written to pi's stdin, before pi's answer to it.
        let handedAt = ContinuousClock.now
        // A terminal session's extension turns a steer into a follow-up while an approval waits
        // (pi would skip the calls already approved: pi extension spec §11 trap 11) and says so.
        let asFollowUp: Bool
        do {
            do {
                let response = try await session.command(command)
                asFollowUp = heldBack || (try? response.data?.parse())?["deliveredAs"]?.stringValue == "followUp"
            } catch let refusal as RemoteError where refusal.code == .piError {
                // A terminal's extension refuses what pi would fail unseen and says why: the chat
                // is answered with that, not with a generic failure.
                guard await session.isAttachedTerminal, let reason = refusal.message.split(separator: ": ", maxSplits: 1).last else { throw refusal }
                throw PromptRefused(session: await session.name, reason: String(reason))
            }
        } catch {
            // No run comes of a prompt that was not taken.
            if startsRun { await session.notePromptRefused() }
            if queuesNow { await session.notePromptNotQueued(text) }
            throw error
        }
        if let arrival {
            metrics.promptIn(messenger: arrival.messenger)
            metrics.hop(.messengerToPi, handedAt - arrival.at)
        }
        await session.noteActivity((kind == .steer ? "↪ " : "▶ ") + (echo ?? text))
        await observer.session(session.id, did: .promptEcho(text: echo ?? text, origin: origin))
        let status: PromptOutcome.Status
        switch kind {
        case _ where asFollowUp: status = .queued
        case _ where startsRun: status = .prompted
        case .send: status = busy == .steer ? .steered : .queued
        case .steer: status = .steered
        case .followUp: status = .queued
        }
        if status == .queued, !queuesNow, !Self.isSlash(text) { await session.notePromptQueued(text, origin: origin) }
        return PromptOutcome(status: status, session: session.id, note: asFollowUp ? Self.followUpWhileGated : nil)
    }

    /// A prompt pi reads as a command (pi-rpc spec §2): an extension's runs at once and no user
    /// message shows it; a template or skill is expanded before it queues. Either way pi's user
    /// message never has its text, so it is not noted as waiting in pi's queue: it would wait
    /// there for good (its age in the metrics, a ⏳, a "Not run" when the queue empties).
    package static func isSlash(_ text: String) -> Bool { text.hasPrefix("/") }

    /// What the chat hears when its steer was queued as a follow-up behind a pending approval.
    package static let followUpWhileGated = "An approval is pending: a steer now would skip the calls already approved, so this waits as a follow-up."

    /// What other chats see of a prompt with attachments: the user's words and the file names.
    /// The prompt itself carries the attachments' content (a text file inlined whole), which
    /// would flood a chat.
    package static func echo(_ text: String, attachments names: [String]) -> String {
        names.isEmpty ? text : text + "\n📎 " + names.joined(separator: ", ")
    }
}
