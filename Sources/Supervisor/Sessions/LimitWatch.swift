import FoundationEssentials
import Logging
import PiRelaySDK

/// Applies `sessions.limits` every `sweepSeconds` (the decisions are `LimitSweeper`'s): ends or
/// starts afresh the sessions idle past their time and aborts runs past the maximum, telling the
/// chats why each time.
package struct LimitWatch: Sendable {
    package let limits: SessionLimits
    package let sessions: Sessions
    package let bindings: ChatBindings
    package let observer: any SessionObserver
    package let logger: Logger

    /// Sweeps until cancelled; returns at once when neither limit is on.
    package func run() async {
        guard limits.idleSeconds > 0 || limits.maxRunSeconds > 0 else { return }
        var sweeper = LimitSweeper(limits: limits)
        while !Task.isCancelled {
            var snapshots: [LimitSweeper.Snapshot] = []
            for session in await sessions.all { snapshots.append(await session.limitSnapshot) }
            for action in sweeper.sweep(snapshots, now: Date()) { await apply(action) }
            do { try await Task.sleep(for: .seconds(limits.sweepSeconds)) } catch { return }
        }
    }

    private func apply(_ action: LimitSweeper.Action) async {
        guard let session = await sessions.session(id: action.session) else { return }
        let name = await session.name
        let idleLimit = "(sessions.limits.idleSeconds: \(limits.idleSeconds))"
        switch action {
        case .end(let id, let idle):
            logger.notice("session \(name): idle for \(idle) s, past sessions.limits.idleSeconds; ending it")
            await SessionEnd(sessions: sessions, bindings: bindings, observer: observer).end(
                session, notice: ("warning", "⏱ \(name) was idle for \(Self.span(idle)) \(idleLimit): it was ended."))
        case .newConversation(let id, let idle):
            logger.notice("session \(name): idle for \(idle) s, past sessions.limits.idleSeconds; starting a new conversation")
            do {
                guard try await session.startAfresh() else {
                    logger.notice("session \(name): an extension in pi kept its conversation (it vetoed new_session)")
                    return
                }
                await tell(id, "info", "⏱ \(name) was idle for \(Self.span(idle)) \(idleLimit): a new conversation was started.")
            } catch {
                logger.error("session \(name): a new conversation for idleness failed: \(error)")
            }
        case .abortRun(let id, let runID, let ran):
            logger.notice("session \(name): run \(runID) ran \(ran) s, past sessions.limits.maxRunSeconds; aborting it")
            await session.noteTimeout("run")
            let past = "⏱ \(name)'s run went on for \(Self.span(ran)), past sessions.limits.maxRunSeconds (\(limits.maxRunSeconds))"
            // Said once pi took the abort: the chat was told "stopped" of a run whose abort failed.
            do {
                _ = try await session.command(.abort)
                await tell(id, "warning", past + ": it was stopped.")
            } catch {
                logger.error("session \(name): aborting the run past its time failed: \(error)")
                await tell(id, "warning", past + ", and stopping it failed (\(error)): /stop it.")
            }
        }
    }

    /// A notice to the session's chats.
    private func tell(_ session: String, _ kind: String, _ text: String) async {
        await observer.session(session, did: .notice(kind: kind, text: text))
    }

    /// "45 s", "12 min", "3 h".
    package static func span(_ seconds: Int) -> String {
        seconds < 120 ? "\(seconds) s" : seconds < 7200 ? "\(seconds / 60) min" : "\(seconds / 3600) h"
    }
}
