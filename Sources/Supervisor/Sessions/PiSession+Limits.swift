import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// What `sessions.limits` needs of a session: its snapshot for the sweeper, starting a new
/// conversation for idleness, and restarting a pi that stopped answering.
extension PiSession {
    package var limitSnapshot: LimitSweeper.Snapshot {
        LimitSweeper.Snapshot(
            id: id, terminal: terminal != nil, lastActivity: lastActivity, runID: runStartedAt == nil ? nil : activeRun,
            runStartedAt: runStartedAt, busy: state == .busy || state == .waitingForAnswer, fresh: machine.freshConversation)
    }

    /// Latencies, timeouts and queued prompts (`SessionHealth`).
    package var health: SessionHealth { machine.health }

    /// A prompt now waits in pi's queue behind a run; `origin`, the chat it came from.
    package func notePromptQueued(_ text: String, origin: String? = nil) {
        machine.health.promptQueued(text, at: Date(), origin: origin)
    }

    /// A prompt noted as queued that pi did not take after all (its command failed).
    package func notePromptNotQueued(_ text: String) {
        machine.health.promptTaken(text)
    }

    /// A limit ran out: `run` (`maxRunSeconds`), `approval` (a gate nobody decided).
    package func noteTimeout(_ kind: String) {
        machine.health.timedOut(kind)
    }

    /// `onIdle: newConversation`: pi starts a new conversation; the session stays. False when an
    /// extension in pi said no (`new_session` vetoed, pi-rpc §2): the conversation goes on, and
    /// is not offered again until something new happens in it.
    @discardableResult
    package func startAfresh() async throws -> Bool {
        try await ensureRunning()
        let vetoed = try await command(.newSession).vetoed
        if !vetoed { try await refreshState() }
        machine.freshConversation = true
        return !vetoed
    }

    /// pi did not answer a command in time: the chats are told, and a pi of ours that was up
    /// (not one still starting, whose start fails on its own) is killed and started again; it
    /// resumes its session file.
    package func hung(_ type: String, after timeout: Duration) async {
        // With a dialog open, pi waits for a person (an abort waits for a gate's answer): not hung.
        guard terminal == nil, machine.lifecycle.isUp, !machine.lifecycle.ending, questions.isEmpty, let group = pid else { return }
        let seconds = timeout.components.seconds
        machine.health.timedOut("command")
        logger.error("session \(name): pi did not answer \(type) within \(seconds) s; restarting it")
        await tell(
            .notice(
                kind: "error", text: "\(name): pi did not answer \(type) within \(seconds) s (sessions.limits.commandSeconds); restarting it."))
        ChildProcess.signalGroup(group, SIGKILL)
        for _ in 0..<200 where pid != nil { try? await Task.sleep(for: .milliseconds(50)) }
        do {
            try await ensureRunning()
            await tell(.notice(kind: "info", text: "\(name): pi was restarted and resumed the session."))
        } catch {
            await tell(.notice(kind: "error", text: "\(name): pi could not be restarted: \(error)"))
        }
    }
}
