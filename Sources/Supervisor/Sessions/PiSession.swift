import Foundation
import Logging
import PiRelaySDK

/// One agent session: a `pi --mode rpc` child in the session's cwd, the commands in flight on
/// it, what the agent is doing, its open questions and its recent history.
actor PiSession {
    let id: String
    private(set) var name: String
    let cwd: String
    private(set) var sessionFile: String?
    private(set) var model: String?
    private(set) var thinkingLevel: String?
    private var lifecycle = SessionLifecycle()
    var state: SessionState { lifecycle.state(busy: recorder.isBusy, openQuestions: questions.count) }
    let createdAt: Date
    private(set) var lastActivity: Date
    let launcher: PiLauncher
    let logger: Logger
    let observer: any SessionObserver
    let persist: @Sendable (SessionRecord) async -> Void

    private var table = PiCommandTable()
    private var waiters: [String: CheckedContinuation<PiResponse, any Error>] = [:]
    private var nextCommand = 0
    /// See `takeIDlessTurn`.
    private var idlessTurnTaken = false
    private var idlessTurnQueue: [(UUID, CheckedContinuation<Void, any Error>)] = []
    private var input: ChildInput?
    private(set) var pid: Int32?
    private var recorder: RunRecorder
    private(set) var lastRun: RunRecord?
    private var activeRun: String?
    /// The run an earlier daemon was in the middle of when it died (its answer never finished).
    private(set) var interruptedRun: String?
    /// The dialogs that were open when an earlier daemon died: they died with its pi.
    private(set) var interruptedQuestions: [PendingQuestion]
    /// Images tools produced in the last run (see `ToolImage`).
    private(set) var images: [ToolImage] = []
    let imageDir: String
    private(set) var questions: [String: PendingQuestion] = [:]
    private var history: EventHistory
    private var watchers: [UUID: AsyncStream<JSONValue>.Continuation] = [:]
    private var stderrTail: [String] = []
    /// How the current child ended, once it has.
    private var lastExit: ChildExit?
    private var starting: Task<Void, any Error>?
    private let reader = PiEventReader()
    private(set) var skippedLines = 0

    init(
        record: SessionRecord, launcher: PiLauncher, historyEntries: Int, historyBytes: Int, logger: Logger,
        observer: any SessionObserver, imageDir: String, persist: @escaping @Sendable (SessionRecord) async -> Void
    ) {
        self.imageDir = imageDir
        id = record.id
        name = record.name
        cwd = record.cwd
        sessionFile = record.sessionFile
        model = record.model
        createdAt = record.createdAt
        lastActivity = record.lastActivity
        orphan = record.pid
        self.launcher = launcher
        self.logger = logger
        self.observer = observer
        self.persist = persist
        history = EventHistory(maxEntries: historyEntries, maxBytes: historyBytes)
        recorder = RunRecorder(sessionID: record.id, sessionName: record.name, runsBefore: record.runs ?? 0)
        interruptedRun = record.activeRun
        interruptedQuestions = record.openQuestions ?? []
    }

    var record: SessionRecord {
        SessionRecord(
            id: id, name: name, cwd: cwd, sessionFile: sessionFile, model: model, createdAt: createdAt,
            lastActivity: lastActivity, pid: pid, runs: recorder.runsNumbered, activeRun: activeRun,
            openQuestions: questions.isEmpty ? nil : openQuestions)
    }

    private var orphan: Int32?

    var isRunning: Bool { pid != nil }

    // MARK: Child lifecycle

    /// Starts pi if it is not running and waits until it answers `get_state`. A pi that is
    /// missing or exits at start fails with its stderr.
    func ensureRunning() async throws {
        if lifecycle.ending { throw RemoteError(code: .unavailable, message: "session \(name) is ending") }
        if pid != nil, starting == nil { return }
        if let starting { return try await starting.value }
        let task = Task { try await self.launch() }
        starting = task
        defer { starting = nil }
        try await task.value
    }

    private func launch() async throws {
        if let old = orphan {
            orphan = nil
            await OrphanChild.stop(old, cwd: cwd, logger: logger)
        }
        let gen = lifecycle.launch(resuming: sessionFile != nil)
        stderrTail = []
        lastExit = nil
        let (events, sink) = AsyncStream<ChildEvent>.makeStream()
        let childInput = ChildInput(highWater: 64 << 20)
        input = childInput
        let spec = launcher.spec(cwd: cwd, sessionFile: sessionFile)
        logger.info("session \(name) (\(id)): starting \(spec.executable) \(spec.arguments.joined(separator: " ")) in \(cwd)")
        // Unstructured on purpose: the child outlives this call; it belongs to the session and
        // is ended by `end()` or by its own exit.
        Task {
            let exit = await ChildProcess.run(spec, input: childInput, events: ChildEventSink { sink.yield($0) })
            sink.yield(.exited(exit))
            sink.finish()
        }
        Task {
            for await event in events { await self.handle(event, generation: gen) }
        }
        do {
            let r = try await command("get_state", [:], timeout: launcher.startTimeout)
            applyState(r)
            lifecycle.answered()
            await persist(record)
            logger.info("session \(name): pi ready (pid \(pid ?? 0)), session file \(sessionFile ?? "none")")
        } catch {
            if let p = pid { ChildProcess.signalGroup(p, SIGKILL) }
            let why = lastExit.map { "pi \($0)" } ?? "pi did not answer get_state: \(error)"
            lifecycle.failedToStart(why, exitSeen: lastExit != nil)
            // pi explains a failed start on stderr, often over several lines ("No models
            // available." comes first, hints follow): pass them on whole, not just the last few.
            let said = spokenLines(stderrTail.suffix(12))
            throw SessionError.piFailed("could not start pi for session \(name): \(why)" + (said.isEmpty ? "" : "\n" + said.joined(separator: "\n")))
        }
    }

    private func applyState(_ r: PiResponse) {
        guard let data = try? r.data?.parse() else { return }
        if let f = data["sessionFile"]?.stringValue { sessionFile = f }
        if let m = data["model"], let id = m["id"]?.stringValue {
            model = (m["provider"]?.stringValue.map { $0 + "/" } ?? "") + id
        }
        if let t = data["thinkingLevel"]?.stringValue { thinkingLevel = t }
    }

    private func handle(_ event: ChildEvent, generation gen: Int) async {
        guard lifecycle.isCurrent(gen) else { return }
        switch event {
        case .started(let p):
            pid = p
        case .stdout(.line(let bytes)):
            let e: PiEvent
            do { e = try reader.read(bytes) } catch {
                skippedLines += 1
                let preview = String(decoding: bytes.prefix(160), as: UTF8.self)
                logger.warning("session \(name): skipped a non-JSON line from pi's stdout: \(preview)")
                return
            }
            await apply(e)
        case .stdoutOversized(let n, let prefix):
            skippedLines += 1
            let kind = OversizedLine.eventType(prefix)
            logger.warning("session \(name): skipped a \(n)-byte \(kind ?? "unknown") line from pi (over the line cap)")
            // The run's lifecycle must not hang on a record too big to read: an oversize
            // agent_end (it carries every message of the run) still ends the run.
            if kind == "agent_end" || kind == "agent_start" {
                let e = PiEvent(type: PiEventType(wireName: kind!))
                record(e)
                await emit(recorder.apply(e, at: .now))
            }
        case .stdout(.oversized(let n)):
            skippedLines += 1
            logger.warning("session \(name): skipped a \(n)-byte line from pi (over the line cap)")
        case .stdout(.unterminatedTail(let n)):
            logger.warning("session \(name): pi's stdout ended with an unterminated \(n)-byte line")
        case .stderr(let line):
            stderrTail.append(line)
            if stderrTail.count > 40 { stderrTail.removeFirst(stderrTail.count - 40) }
            logger.debug("session \(name) pi stderr: \(line)")
        case .exited(let exit):
            await childExited(exit)
        }
    }

    /// stderr lines worth showing: blank ones dropped, indentation kept.
    private func spokenLines<S: Sequence<String>>(_ lines: S) -> [String] {
        lines.filter { !$0.allSatisfy(\.isWhitespace) }
    }

    private func childExited(_ exit: ChildExit) async {
        pid = nil
        input?.finish()
        input = nil
        lastExit = exit
        let reason = lifecycle.exited(exit, stderr: spokenLines(stderrTail))
        // Cleared before the save: a daemon restarted later must not close them a second time.
        let closed = questions
        questions.removeAll()
        await persist(record)
        for id in table.drain() {
            waiters.removeValue(forKey: id)?.resume(throwing: SessionError.piFailed("pi exited before answering (\(reason))"))
        }
        await emit(recorder.childExited(reason: reason))
        for (_, q) in closed { await tell(.questionClosed(q, outcome: "pi exited")) }
        if !lifecycle.ending {
            logger.warning("session \(name): \(reason)")
            record(type: "exited", ["reason": .string(reason)])
            await tell(.exited(reason: reason))
        }
    }

    // MARK: Commands

    /// Sends one command and waits for the response that settles it.
    func command(_ type: String, _ fields: JSONValue, timeout: Duration = .seconds(60)) async throws -> PiResponse {
        let exclusive = PiCommandTable.mayFailWithoutID.contains(type)
        if exclusive { try await takeIDlessTurn(type, timeout: timeout) }
        defer { if exclusive { passIDlessTurn() } }
        guard let input else { throw RemoteError(code: .unavailable, message: "pi is not running for session \(name)") }
        nextCommand += 1
        let cid = "r\(nextCommand)"
        var obj = fields
        obj["type"] = .string(type)
        obj["id"] = .string(cid)
        var line = obj.serializedBytes()
        line.append(0x0A)
        table.sent(id: cid, type: type)
        input.send(line)
        if type == "extension_ui_response" { return PiResponse(id: cid, command: type, success: true) }
        let r = try await withDeadline(timeout, onTimeout: { [weak self] in await self?.expire(cid, type: type, after: timeout) }) {
            try await withCheckedThrowingContinuation { waiters[cid] = $0 }
        }
        lastActivity = Date()
        if r.success == false {
            throw SessionError.piFailed("pi refused \(type): \(Self.clean(r.error ?? "unknown error"))")
        }
        return r
    }

    /// Waits until no other command that may fail without an id is in flight: pi's id-less
    /// failure then belongs to the one command that can have caused it, whatever else (a slow
    /// compaction, an abort waiting on a dialog) is outstanding.
    private func takeIDlessTurn(_ type: String, timeout: Duration) async throws {
        guard idlessTurnTaken else {
            idlessTurnTaken = true
            return
        }
        let key = UUID()
        try await withDeadline(timeout, onTimeout: { [weak self] in await self?.giveUpIDlessTurn(key, type: type, after: timeout) }) {
            try await withCheckedThrowingContinuation { idlessTurnQueue.append((key, $0)) }
        }
    }

    private func passIDlessTurn() {
        if idlessTurnQueue.isEmpty { idlessTurnTaken = false } else { idlessTurnQueue.removeFirst().1.resume() }
    }

    private func giveUpIDlessTurn(_ key: UUID, type: String, after timeout: Duration) {
        guard let i = idlessTurnQueue.firstIndex(where: { $0.0 == key }) else { return }
        idlessTurnQueue.remove(at: i).1.resume(
            throwing: RemoteError.timeout("pi was busy with an earlier command; \(type) was not sent within \(timeout)"))
    }

    private func expire(_ cid: String, type: String, after timeout: Duration) {
        guard let w = waiters.removeValue(forKey: cid) else { return }
        table.cancel(cid)
        w.resume(throwing: RemoteError.timeout("pi did not answer \(type) within \(timeout)"))
    }

    /// pi wraps thrown errors as "Failed to parse command: <real message>".
    static func clean(_ error: String) -> String {
        error.hasPrefix("Failed to parse command: ") ? String(error.dropFirst("Failed to parse command: ".count)) : error
    }

    /// Writes a line that gets no response (dialog answers).
    private func write(_ obj: JSONValue) {
        guard let input else { return }
        var line = obj.serializedBytes()
        line.append(0x0A)
        input.send(line)
    }

    // MARK: Events

    private func apply(_ e: PiEvent) async {
        lastActivity = Date()
        switch e.type {
        case .response:
            guard let r = e.response else { return }
            switch table.received(r) {
            case .settles(let cid, let type):
                if type == "compact" || type == "new_session" || type == "switch_session", r.success == true {
                    await emit(recorder.abortedSilently(by: type))
                    record(type: type == "compact" ? "compacted" : "new_conversation", [:])
                }
                waiters.removeValue(forKey: cid)?.resume(returning: r)
            case .promptRejectedLate(_, let error):
                let text = "pi rejected the prompt: \(Self.clean(error))"
                record(type: "prompt_rejected", ["error": .string(Self.clean(error))])
                await tell(.notice(kind: "error", text: text))
            case .duplicate, .unmatched:
                break
            }
            return
        case .extensionUIRequest:
            if let q = e.extensionUIRequest { await uiRequest(q) }
            return
        case .extensionError where !recorder.isBusy:
            let x = e.extensionError
            let text = "extension error (\(x?.extensionPath ?? "?"), \(x?.event ?? "?")): \(x?.error ?? "")"
            record(type: "extension_error", ["text": .string(text)])
            await tell(.notice(kind: "extension-error", text: text))
            return
        default:
            break
        }
        record(e)
        if e.type == .toolExecutionEnd, let t = e.toolExecution, let imgs = t.images, !imgs.isEmpty {
            keepImages(imgs, tool: t.toolName ?? "tool")
        }
        await emit(recorder.apply(e, at: .now))
    }

    private func keepImages(_ imgs: [PiImage], tool: String) {
        try? FileManager.default.createDirectory(
            atPath: imageDir, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        for img in imgs {
            guard let data = Data(base64Encoded: img.base64) else { continue }
            let name = "\(tool)-\(images.count + 1).\(ToolImage.fileExtension(img.mimeType))"
            let path = imageDir + "/" + name
            if AtomicFile.write([UInt8](data), to: path) {
                images.append(ToolImage(path: path, filename: name, mimeType: img.mimeType, toolName: tool))
            }
        }
    }

    private func forgetImages() {
        for i in images { try? FileManager.default.removeItem(atPath: i.path) }
        images.removeAll()
    }

    private func emit(_ outputs: [RunRecorder.Output]) async {
        for o in outputs {
            switch o {
            case .started(let r):
                forgetImages()
                // Saved before anyone sees the run: a daemon killed now must not number a later
                // run the same, and must say at its restart that this one was cut off.
                activeRun = r.runID
                await persist(record)
                await tell(.runStarted(r))
            case .updated(let r):
                await tell(.runUpdated(r))
            case .finished(let r):
                lastRun = r
                record(type: "run_finished", ["stopReason": JSONValue(r.stopReason)])
                await tell(.runFinished(r))
                // The next run may have started while this final was being delivered.
                if activeRun == r.runID {
                    activeRun = nil
                    await persist(record)
                }
            case .settleAfter(let window):
                // Unstructured on purpose: a one-shot timer that re-checks the run after the window.
                Task { [weak self] in
                    try? await Task.sleep(for: window + .milliseconds(20))
                    await self?.settle()
                }
            }
        }
    }

    private func tell(_ news: SessionNews) async {
        await observer.session(id, did: news)
    }

    private func settle() async {
        await emit(recorder.settle(at: .now))
    }

    /// A compact preview of an event for history and `stream`.
    private func record(_ e: PiEvent) {
        switch e.type {
        case .messageUpdate:
            guard let u = e.assistantMessageEvent, let delta = u.delta else { return }
            if u.type == .textDelta {
                record(type: "text_delta", ["delta": .string(String(delta.prefix(200)))])
            } else if u.type == .thinkingDelta {
                record(type: "thinking_delta", ["delta": .string(String(delta.prefix(200)))])
            }
        case .messageStart:
            record(type: "message_start", ["role": JSONValue(e.message?.role)])
        case .messageEnd:
            guard let m = e.message else { return }
            var preview: JSONValue = ["role": JSONValue(m.role)]
            if let s = m.stopReason { preview["stopReason"] = .string(s) }
            if let err = m.errorMessage { preview["errorMessage"] = .string(err) }
            record(type: "message_end", preview)
        case .toolExecutionStart:
            let t = e.toolExecution
            record(type: "tool_execution_start", ["toolName": JSONValue(t?.toolName), "args": .string(String((t?.args?.text ?? "").prefix(300)))])
        case .toolExecutionEnd:
            let t = e.toolExecution
            record(type: "tool_execution_end", ["toolName": JSONValue(t?.toolName), "isError": .bool(t?.isError ?? false)])
        case .toolExecutionUpdate:
            return
        case .autoRetryStart:
            let r = e.autoRetry
            record(
                type: "auto_retry_start",
                [
                    "attempt": JSONValue(r?.attempt ?? 0), "delayMs": JSONValue(r?.delayMs ?? 0),
                    "errorMessage": JSONValue(r?.errorMessage),
                ])
        case .autoRetryEnd:
            record(type: "auto_retry_end", ["success": .bool(e.autoRetry?.success ?? false), "finalError": JSONValue(e.autoRetry?.finalError)])
        case .autoCompactionStart:
            record(type: "auto_compaction_start", ["reason": JSONValue(e.autoCompaction?.reason)])
        case .autoCompactionEnd:
            let c = e.autoCompaction
            record(type: "auto_compaction_end", ["willRetry": .bool(c?.willRetry ?? false), "aborted": .bool(c?.aborted ?? false)])
        case .extensionError:
            record(type: "extension_error", ["error": JSONValue(e.extensionError?.error)])
        default:
            record(type: e.type.wireName, [:])
        }
    }

    // MARK: Questions

    private func uiRequest(_ q: PiExtensionUIRequest) async {
        guard let qid = q.id, let method = q.method else { return }
        switch method {
        case "select", "confirm", "input", "editor":
            var expires: Date?
            if let ms = q.timeout, ms > 0 {
                expires = Date().addingTimeInterval(Double(ms) / 1000)
            } else if method != "editor" || q.timeout == nil, let d = launcher.dialogTimeout {
                expires = Date().addingTimeInterval(Double(d.components.seconds))
            }
            let question = PendingQuestion(
                id: qid, sessionID: id, method: method, title: q.title ?? "",
                message: q.message, options: q.options ?? [], placeholder: q.placeholder,
                prefill: q.prefill, askedAt: Date(), expiresAt: expires)
            questions[qid] = question
            record(type: "question", question.json)
            // Saved before any chat shows it, so a daemon killed meanwhile still closes it there.
            await persist(record)
            if let expires {
                let policyTimeout = q.timeout == nil
                // Unstructured on purpose: the dialog's own countdown runs beside the session.
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(max(0, expires.timeIntervalSinceNow)))
                    await self?.expireQuestion(qid, cancelOnPi: policyTimeout)
                }
            }
            await tell(.questionAsked(question))
        case "notify":
            record(type: "notify", ["message": JSONValue(q.message), "notifyType": JSONValue(q.notifyType)])
            await tell(.notice(kind: q.notifyType ?? "info", text: q.message ?? ""))
        default:
            var preview: JSONValue = ["method": .string(method)]
            if let t = q.title { preview["title"] = .string(t) }
            if let k = q.statusKey { preview["statusKey"] = .string(k) }
            if let t = q.statusText { preview["statusText"] = .string(t) }
            if let k = q.widgetKey { preview["widgetKey"] = .string(k) }
            if let t = q.text { preview["text"] = .string(String(t.prefix(200))) }
            record(type: "ui", preview)
        }
    }

    /// pi already resolved a timed-out dialog with its default, silently; ours closes it too.
    /// A dialog closed by our own policy (it had no timeout) is cancelled on pi's side.
    private func expireQuestion(_ qid: String, cancelOnPi: Bool) async {
        guard let q = questions.removeValue(forKey: qid) else { return }
        if cancelOnPi { write(q.cancellation()) }
        record(type: "question_expired", ["id": .string(qid)])
        await persist(record)
        await tell(.questionClosed(q, outcome: "expired: no answer in time"))
    }

    /// The first answer wins; a later one finds no question.
    func answer(_ qid: String, value: String, by who: String) async throws -> PendingQuestion {
        guard let q = questions[qid] else {
            throw RemoteError(code: .notFound, message: "no open question \(qid) in session \(name) (already answered or expired)")
        }
        let response: JSONValue
        do { response = try q.response(for: value) } catch { throw RemoteError.invalidParams("\(error)") }
        questions.removeValue(forKey: qid)
        write(response)
        let shown = response["confirmed"].map { $0.boolValue == true ? "yes" : "no" } ?? response["value"]?.stringValue ?? value
        record(type: "question_answered", ["id": .string(qid), "answer": .string(shown), "by": .string(who)])
        await persist(record)
        await tell(.questionClosed(q, outcome: "\(who) answered: \(shown)"))
        return q
    }

    func cancel(_ qid: String, by who: String) async throws -> PendingQuestion {
        guard let q = questions.removeValue(forKey: qid) else {
            throw RemoteError(code: .notFound, message: "no open question \(qid) in session \(name)")
        }
        write(q.cancellation())
        record(type: "question_cancelled", ["id": .string(qid), "by": .string(who)])
        await persist(record)
        await tell(.questionClosed(q, outcome: "\(who) cancelled it"))
        return q
    }

    var openQuestions: [PendingQuestion] { questions.values.sorted { $0.askedAt < $1.askedAt } }

    // MARK: History and watchers

    private func record(type: String, _ preview: JSONValue) {
        let now = Date()
        history.append(type: type, preview: preview, at: now)
        guard !watchers.isEmpty else { return }
        var e = preview
        if case .object = e {} else { e = ["value": preview] }
        e["type"] = .string(type)
        e["time"] = .string(ISO8601.string(now))
        e["session"] = .string(name)
        for (_, w) in watchers { w.yield(e) }
    }

    func historyEntries(types: Set<String>?, since: Date?, limit: Int) -> [JSONValue] {
        history.query(types: types, since: since, limit: limit).map { entry in
            var e = entry.preview
            if case .object = e {} else { e = ["value": entry.preview] }
            e["type"] = .string(entry.type)
            e["time"] = .string(ISO8601.string(entry.time))
            return e
        }
    }

    var historyCount: Int { history.count }
    var historyBytes: Int { history.totalBytes }

    func watch() -> (UUID, AsyncStream<JSONValue>) {
        let (stream, cont) = AsyncStream<JSONValue>.makeStream(bufferingPolicy: .bufferingNewest(2000))
        let key = UUID()
        watchers[key] = cont
        return (key, stream)
    }

    func unwatch(_ key: UUID) {
        watchers.removeValue(forKey: key)?.finish()
    }

    // MARK: Naming and ending

    func rename(_ newName: String) async {
        name = newName
        recorder.rename(newName)
        await persist(record)
        if pid != nil { _ = try? await command("set_session_name", ["name": .string(newName)], timeout: .seconds(10)) }
    }

    /// Reads pi's state again and saves what matters of it: after `new_session` pi writes to a
    /// new session file (the one to resume after a restart), and pi may clamp a thinking level.
    func refreshState() async throws {
        let r = try await command("get_state", [:], timeout: .seconds(30))
        applyState(r)
        await persist(record)
    }

    func noteModel(_ m: String) async {
        model = m
        await persist(record)
    }

    /// Close stdin, then TERM, then KILL the process group.
    func end() async {
        lifecycle.end()
        for (_, w) in watchers { w.finish() }
        watchers.removeAll()
        guard let p = pid else { return }
        input?.finish()
        for _ in 0..<40 where pid != nil { try? await Task.sleep(for: .milliseconds(50)) }
        // The group outlives pi when something pi started (a tool's server, say) is still in it:
        // that gets TERM and KILL too. pi leads the group, so its pid names the group.
        if groupAlive(p) { Self.signalGroupOnly(p, SIGTERM) }
        for _ in 0..<40 where groupAlive(p) { try? await Task.sleep(for: .milliseconds(50)) }
        if groupAlive(p) { Self.signalGroupOnly(p, SIGKILL) }
        for _ in 0..<40 where groupAlive(p) { try? await Task.sleep(for: .milliseconds(50)) }
    }

    private func groupAlive(_ group: Int32) -> Bool {
        pid != nil || kill(-group, 0) == 0
    }

    /// Never the pid alone: once pi is reaped its pid may belong to someone else, while the
    /// group id stays reserved as long as the group has a member.
    private static func signalGroupOnly(_ group: Int32, _ signal: Int32) {
        if group > 0 { kill(-group, signal) }
    }

    func summary() -> SessionSummary {
        var summary = SessionSummary(id: id, name: name, cwd: cwd, state: state.name)
        summary.lastActivity = ISO8601.string(lastActivity)
        summary.questions = questions.count
        if case .exited(let reason) = state { summary.exitReason = Redactor.redact(reason) }
        summary.sessionFile = sessionFile
        summary.model = model
        summary.thinkingLevel = thinkingLevel
        summary.pid = pid.map { Int($0) }
        return summary
    }
}
