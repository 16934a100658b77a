import FoundationEssentials
import Logging
import PiRelaySDK

/// Every session the daemon owns: creates, finds (by id, name or unique prefix), persists and
/// ends them, and brings them back after a restart.
package actor Sessions {
    package let store: StateFile<SessionRecord>
    private let saver: SessionSaver
    package let launcher: PiLauncher
    package let historyEntries: Int
    package let historyBytes: Int
    package let logger: Logger
    package let observer: any SessionObserver
    /// This machine's name (`machine:`), on every summary.
    package nonisolated let machine: String
    /// Where a spawned session's pi file goes when it ends, for `sessions.keepDays`.
    package var ended: EndedSessions?
    private var sessions: [String: PiSession] = [:]
    private var records: [String: SessionRecord] = [:]
    package private(set) var saveError: String?

    package init(
        store: StateFile<SessionRecord>, launcher: PiLauncher, historyEntries: Int, historyBytes: Int, logger: Logger,
        observer: any SessionObserver, machine: String, ended: EndedSessions? = nil
    ) {
        self.ended = ended
        self.machine = machine
        self.store = store
        saver = SessionSaver(store: store)
        self.launcher = launcher
        self.historyEntries = historyEntries
        self.historyBytes = historyBytes
        self.logger = logger
        self.observer = observer
    }

    /// Resumes each saved session (read by the daemon at start) from its pi session file. A
    /// session whose pi cannot start stays listed as exited, with the reason.
    /// Takes the saved sessions in, before the control socket opens: an extension that attaches
    /// the moment the socket appears must find its session's record, not register a new one
    /// that `restore` would then replace.
    package func adopt(_ saved: [SessionRecord]) {
        for var record in saved.sorted(by: { $0.createdAt < $1.createdAt }) {
            if record.marker == nil { record.marker = SessionMarker.next(taken: records.values.compactMap(\.marker)) }
            records[record.id] = record
            sessions[record.id] = makeSession(record)
        }
        if !saved.isEmpty { logger.info("restoring \(saved.count) session(s)") }
    }

    /// Brings the adopted sessions back: pi children are started again, terminal sessions wait
    /// for their extension, and the chats hear what the restart cut off.
    ///
    /// At most `width` pi children start at once, oldest session first. A pi's start takes a core
    /// for a moment, and a daemon restarted with a thousand sessions that forked them all at
    /// once kept `status` and the one session a user was prompting waiting for seconds. A
    /// session not reached yet is listed as starting; a prompt or command to it starts its pi
    /// at once (`ensureRunning`), ahead of the queue.
    package func restore(width: Int = Sessions.restoreWidth) async {
        let queue = records.values.sorted { $0.createdAt < $1.createdAt }.compactMap { sessions[$0.id] }
        await withTaskGroup(of: Void.self) { group in
            var waiting = queue.makeIterator()
            for _ in 0..<max(1, width) {
                guard let session = waiting.next() else { break }
                group.addTask { await self.bringBack(session) }
            }
            while await group.next() != nil {
                guard let session = waiting.next() else { continue }
                group.addTask { await self.bringBack(session) }
            }
        }
    }

    /// How many pi children a restart starts at once: the machine's cores, from 2 to 8.
    package static var restoreWidth: Int { max(2, min(8, ProcessInfo.processInfo.activeProcessorCount)) }

    private nonisolated func bringBack(_ session: PiSession) async {
        // A terminal session waits for its extension to attach again.
        if session.terminal == nil {
            do { try await session.ensureRunning() } catch {
                logger.error("\(error)")
            }
        }
        // Told once pi is back: the plugins have been found by then.
        await closeInterruptedQuestions(session)
        if let run = await session.interruptedRun { await reportInterrupted(session, run: run) }
    }

    /// A run the daemon was in the middle of when it was killed never ends: its live view stops
    /// where it was. The chats watching the session are told, so nobody waits for the rest.
    private func reportInterrupted(_ session: PiSession, run: String) async {
        let name = await session.name
        logger.notice("session \(name): run \(run) was cut off when pi-relayd stopped")
        await observer.session(
            session.id,
            did: .runCutOff(
                text: "pi-relayd was restarted while \(name) was working: "
                    + "the answer in progress was cut off and will not finish. Send the prompt again if you still need it."))
    }

    /// The dialogs open when the daemon was killed died with their pi: no answer can reach them
    /// any more. Each is closed in the chats as an expired one is, so its buttons go away.
    private func closeInterruptedQuestions(_ session: PiSession) async {
        let lost = await session.interruptedQuestions
        guard !lost.isEmpty else { return }
        let name = await session.name
        logger.notice("session \(name): \(lost.count) open question(s) ended when pi-relayd stopped")
        for question in lost {
            await observer.session(
                session.id, did: .questionClosed(question, outcome: "expired: pi-relayd was restarted and the agent no longer waits for this answer"))
        }
    }

    private func makeSession(_ record: SessionRecord) -> PiSession {
        PiSession(
            record: record, launcher: launcher, historyEntries: historyEntries, historyBytes: historyBytes,
            logger: logger, observer: observer,
            imageDir: store.path.parentPath + "/images/" + record.id, rawHistoryPath: store.path.parentPath + "/history/" + record.id + ".jsonl"
        ) { [weak self] rec in
            await self?.update(rec)
        }
    }

    /// Starts a new pi child in `cwd`. `spawnedBy` names the session whose agent asked for it
    /// (`spawn_session`), which may have `spawnLimit` such sessions at a time. Checked here, in
    /// the actor, so two spawns at once cannot both take the last place.
    package func create(cwd: String, name: String?, spawnedBy: String? = nil, spawnLimit: Int = .max) async throws -> PiSession {
        if let parent = spawnedBy, spawnedCount(by: parent) >= spawnLimit {
            let parentName = records[parent]?.name ?? parent
            throw RemoteError(
                code: .unavailable,
                message:
                    "\(parentName) already has \(spawnedCount(by: parent)) spawned session(s) running, its limit (sessions.spawnLimit: \(spawnLimit)); end one first"
            )
        }
        var isDir: Bool = false
        let dir = Home.absolute(cwd)
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir else {
            throw RemoteError.invalidParams("no such directory: \(dir)")
        }
        var id: String
        repeat { id = String(UUID().uuidString.lowercased().replacing("-", with: "").prefix(8)) } while records[id] != nil
        let base =
            name.flatMap { $0.isEmpty ? nil : $0 }
            ?? (URL(fileURLWithPath: dir).lastPathComponent.isEmpty ? "session" : URL(fileURLWithPath: dir).lastPathComponent)
        if let name, !name.isEmpty, records.values.contains(where: { $0.name == name }) {
            throw RemoteError.invalidParams("a session named \(name) already exists")
        }
        let now = Date()
        let record = SessionRecord(
            id: id, name: uniqueName(base), cwd: dir, sessionFile: nil, model: nil,
            createdAt: now, lastActivity: now, spawnedBy: spawnedBy, marker: SessionMarker.next(taken: records.values.compactMap(\.marker)))
        let session = makeSession(record)
        sessions[id] = session
        records[id] = record
        do {
            try await session.ensureRunning()
        } catch {
            sessions.removeValue(forKey: id)
            records.removeValue(forKey: id)
            await save()
            throw error
        }
        await save()
        logger.info("session \(record.name) (\(id)) created in \(dir)")
        return session
    }

    private func uniqueName(_ base: String) -> String {
        let taken = Set(records.values.map(\.name))
        if !taken.contains(base) { return base }
        var suffix = 2
        while taken.contains("\(base)-\(suffix)") { suffix += 1 }
        return "\(base)-\(suffix)"
    }

    /// By exact id, exact name, pi's process id, the folder it works in (an absolute path, when
    /// one session works there), or a prefix of exactly one id or name. No key names the one
    /// session there is.
    package func resolve(_ key: String?) async throws -> PiSession {
        guard let key else {
            guard all.count == 1 else { throw SessionError.unnamed(count: all.count) }
            return all[0]
        }
        if let session = sessions[key] { return session }
        if let record = records.values.first(where: { $0.name == key }), let session = sessions[record.id] { return session }
        if let pid = Int32(key), pid > 0 {
            for session in all where await session.pid == pid { return session }
        }
        if key.hasPrefix("/") {
            let folder = key.realPath ?? key
            let working = all.filter { ($0.cwd.realPath ?? $0.cwd) == folder }
            if working.count == 1 { return working[0] }
            if working.count > 1 {
                var names: [String] = []
                for session in working { names.append("\(await session.name) (\(session.id))") }
                throw SessionError.ambiguous(key, names.sorted())
            }
        }
        let matches = records.values.filter { $0.id.hasPrefix(key) || $0.name.hasPrefix(key) }
        if matches.count == 1, let session = sessions[matches[0].id] { return session }
        if matches.count > 1 { throw SessionError.ambiguous(key, matches.map { "\($0.name) (\($0.id))" }.sorted()) }
        throw SessionError.notFound(key)
    }

    package func session(id: String) -> PiSession? { sessions[id] }

    /// How many sessions `parent`'s agent spawned that are still there.
    package func spawnedCount(by parent: String) -> Int {
        records.values.count { $0.spawnedBy == parent }
    }

    /// By exact name only: a configured name must not pick a session whose name or id merely
    /// starts with it.
    package func session(named name: String) -> PiSession? {
        records.values.first { $0.name == name }.flatMap { sessions[$0.id] }
    }

    /// Oldest first: the order `/sessions` numbers them in. sessions.json keeps whole seconds, so
    /// sessions made in the same second go by name, and the numbers are the same after a restart.
    package var all: [PiSession] {
        records.values.sorted { lhs, rhs in
            let (left, right) = (lhs.createdAt.timeIntervalSince1970.rounded(.down), rhs.createdAt.timeIntervalSince1970.rounded(.down))
            return left != right ? left < right : lhs.name < rhs.name
        }.compactMap { sessions[$0.id] }
    }

    /// The sessions whose pi did not load the extension their approval rules need, with what pi
    /// said: a problem in `status` until a pi that loads it runs.
    package func ungatedProblems() async -> [String] {
        var out: [String] = []
        for session in all {
            if let said = await session.extensionNotLoaded {
                out.append("session \(await session.name): pi did not load pi-relayd's extension (\(said)); its prompts are refused")
            }
        }
        return out
    }

    package func list() async -> [SessionSummary] {
        var out: [SessionSummary] = []
        for session in all { out.append(await summary(session)) }
        return out
    }

    /// The session's summary, with the machine it runs on.
    package func summary(_ session: PiSession) async -> SessionSummary {
        var summary = await session.summary()
        summary.machine = machine
        return summary
    }

    package func rename(_ session: PiSession, to newName: String) async throws {
        let sid = session.id
        if records.values.contains(where: { $0.name == newName && $0.id != sid }) {
            throw RemoteError.invalidParams("a session named \(newName) already exists")
        }
        guard !newName.isEmpty else { throw RemoteError.invalidParams("a name cannot be empty") }
        if let refusal = launcher.approvals.renameRefusal(from: await session.name, to: newName) {
            throw RemoteError.invalidParams(refusal)
        }
        await session.rename(newName)
    }

    /// A terminal session is the user's pi: while it is attached, only the terminal ends it.
    package func mayEnd(_ session: PiSession) async throws {
        guard await session.isAttachedTerminal else { return }
        throw RemoteError(
            code: .unavailable,
            message:
                "\(await session.name) is a terminal session and its pi is attached: quit pi in the terminal, then /forget the session once it shows as offline"
        )
    }

    /// The session of a terminal pi's session id, made on its first attach and found again on
    /// every later one (after a reconnect or a daemon restart). Not attached yet: the caller moves
    /// the chats of a replaced session first, so none of them writes to a session that shows as
    /// idle while its chats still talk to the old one.
    package func terminalSession(for registration: TerminalRegistration) async -> PiSession {
        let id = registration.sessionID
        let session: PiSession
        if let existing = sessions[id] {
            session = existing
        } else {
            let now = Date()
            let folder = URL(fileURLWithPath: registration.cwd).lastPathComponent
            var record = SessionRecord(
                id: id, name: uniqueName(registration.name ?? (folder.isEmpty || folder == "/" ? "terminal" : folder)),
                cwd: registration.cwd, sessionFile: registration.sessionFile, model: registration.model, createdAt: now, lastActivity: now)
            record.terminal = TerminalRecord(piSessionID: registration.piSessionID)
            record.marker = SessionMarker.next(taken: records.values.compactMap(\.marker))
            session = makeSession(record)
            sessions[id] = session
            records[id] = record
            await save()
            logger.info("terminal session \(record.name) (\(id)) registered, pi pid \(registration.pid) in \(registration.cwd)")
        }
        return session
    }

    package func end(_ session: PiSession) async {
        await session.end()
        await session.dropRawHistory()
        if session.terminal == nil, let file = await session.sessionFile {
            await ended?.note(EndedSession(id: session.id, name: await session.name, sessionFile: file, endedAt: Date()))
        }
        sessions.removeValue(forKey: session.id)
        records.removeValue(forKey: session.id)
        await save()
        logger.info("session \(session.id) ended")
    }

    /// Daemon shutdown: stop every child but keep the records, so they come back on start.
    package func shutdown() async {
        await withTaskGroup(of: Void.self) { group in
            for (_, session) in sessions { group.addTask { await session.end() } }
        }
        await save()
    }

    private func update(_ record: SessionRecord) async {
        guard let old = records[record.id] else { return }
        // A new conversation (`/reset`, `onMessage`/`onIdle: newConversation`) leaves the last
        // one's file behind: it is kept for `keepDays` like an ended session's.
        if old.terminal == nil, let before = old.sessionFile, record.sessionFile != nil, before != record.sessionFile {
            await ended?.note(EndedSession(id: record.id, name: record.name, sessionFile: before, endedAt: Date()))
        }
        records[record.id] = record
        await save()
    }

    private func save() async {
        if let error = await saver.save(Array(records.values)) {
            if saveError == nil { logger.error("cannot save sessions: \(error); keeping them in memory and relaying on") }
            saveError = error
        } else {
            if saveError != nil { logger.notice("session state saved again") }
            saveError = nil
        }
    }
}
