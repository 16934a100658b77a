import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The pi session files of sessions pi-relayd spawned and that have ended (`state/ended-sessions.json`),
/// removed `sessions.keepDays` after the end by `sweep`, each removal logged. A terminal
/// session's files are the person's and never listed here. Off (nothing listed, nothing
/// removed) when `keepDays` is 0.
package actor EndedSessions {
    package static let sweepInterval: Duration = .seconds(3600)

    private let store: StateFile<EndedSession>
    private let failures: StateFailures
    private let sweeper: EndedSessionSweeper
    private let logger: Logger
    private var ended: [EndedSession]

    package init(
        store: StateFile<EndedSession>, saved: [EndedSession], keepDays: Int, logger: Logger, failures: StateFailures = StateFailures()
    ) {
        self.failures = failures
        self.store = store
        sweeper = EndedSessionSweeper(keepDays: keepDays)
        self.logger = logger
        ended = saved
    }

    /// A spawned session ended: its file is kept for `keepDays`, then removed.
    package func note(_ session: EndedSession) {
        guard sweeper.keepDays > 0, session.sessionFile.hasSuffix(".jsonl") else { return }
        ended.append(session)
        save()
    }

    /// Removes the files whose time is up, now and every `sweepInterval`, until cancelled.
    package func run() async {
        guard sweeper.keepDays > 0 else { return }
        while !Task.isCancelled {
            sweep(now: Date())
            do { try await Task.sleep(for: Self.sweepInterval) } catch { return }
        }
    }

    package func sweep(now: Date) {
        let due = sweeper.due(ended, now: now)
        guard !due.isEmpty else { return }
        for session in due {
            let days = Int(now.timeIntervalSince(session.endedAt) / 86_400)
            if unlink(session.sessionFile) == 0 {
                logger.notice(
                    "removed \(session.sessionFile), the pi session file of \(session.name), ended \(days) day(s) ago (sessions.keepDays: \(sweeper.keepDays))"
                )
            } else if errno == ENOENT {
                logger.info("the pi session file of \(session.name) was gone already: \(session.sessionFile)")
            } else {
                logger.warning("cannot remove \(session.sessionFile) of ended session \(session.name): \(String(cString: strerror(errno)))")
                continue
            }
            ended.removeAll { $0.id == session.id && $0.sessionFile == session.sessionFile }
        }
        save()
    }

    package var listed: [EndedSession] { ended }

    private func save() {
        do {
            try store.save(ended)
            failures.saved(store.name)
        } catch {
            if failures.failed(store.name, error) { logger.error("cannot save the ended sessions' files list: \(error)") }
        }
    }
}
