import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// One agent session: a `pi --mode rpc` child in the session's cwd, or an interactive pi in a
/// terminal attached through the extension (`PiSession+Terminal`); the commands in flight on it,
/// what the agent is doing, its open questions and its recent history. Both kinds speak pi's RPC
/// protocol, so everything above this type works the same for either.
package actor PiSession {
    /// How far this session's event loop may fall behind pi's stdout before reading pauses.
    package static let readWindowBytes = 4 << 20

    /// What the session is from its creation on.
    package let identity: SessionIdentity
    package nonisolated var id: String { identity.id }
    package nonisolated var cwd: String { identity.cwd }
    package nonisolated var createdAt: Date { identity.createdAt }
    package nonisolated var marker: String { identity.marker }
    package nonisolated var spawnedBy: String? { identity.spawnedBy }
    package nonisolated var terminal: TerminalRecord? { identity.terminal }
    package private(set) var name: String
    /// What pi said of the session: its file, model and thinking level.
    package var reported = PiReport()
    package var sessionFile: String? { reported.sessionFile }
    package var model: String? { reported.model }
    package var thinkingLevel: String? { reported.thinkingLevel }
    package var modelTakesImages: Bool? { reported.modelTakesImages }
    /// What the session is doing: lifecycle, runs, where the prompt came from (`SessionMachine`).
    package var machine: SessionMachine
    package var state: SessionState { machine.state(openQuestions: questions.count) }
    package var lastActivity: Date { machine.lastActivity }
    package let services: SessionServices
    package nonisolated var launcher: PiLauncher { services.launcher }
    package nonisolated var logger: Logger { services.logger }

    private var commands = CommandBook()
    /// What pi said when it could not load our extension, for a session with approval rules:
    /// its prompts are refused until a pi that loads it runs (`extensionFailed`).
    package private(set) var extensionNotLoaded: String?
    /// The pi behind the session (`PiChild`).
    package var child = PiChild()
    package var input: (any PiInput)? { child.input }
    package var pid: Int32? { child.pid }
    package var lastRun: RunRecord? { machine.runs.last }
    package var recentRuns: [FinishedRun] { machine.runs.recent }
    package static var recentRunsKept: Int { SessionRuns.recentKept }
    package var activeRun: String? { machine.runs.active }
    package var runStartedAt: Date? { machine.runs.startedAt }
    package var interruptedRun: String? { machine.runs.interrupted }
    /// Open questions, and those an earlier daemon left open.
    package var questions: QuestionBook
    package var interruptedQuestions: [PendingQuestion] { questions.interrupted }
    /// Images tools produced in the last run (see `ToolImage`).
    private var toolImages: ToolImages
    package var images: [ToolImage] { toolImages.list }
    /// Its events, `/recent`'s lines and its `stream` clients.
    private var history: SessionHistory
    /// Gated tool calls and what was approved for the session (`PiSession+Approvals`).
    package var approvals = ApprovalBook()
    package var promptOrigin: String? { machine.promptOrigin }
    package var skippedLines: Int { child.skippedLines }

    package init(
        record: SessionRecord, launcher: PiLauncher, historyEntries: Int, historyBytes: Int, logger: Logger,
        observer: any SessionObserver, imageDir: String, rawHistoryPath: String? = nil,
        persist: @escaping @Sendable (SessionRecord) async -> Void
    ) {
        identity = SessionIdentity(record: record)
        name = record.name
        reported = PiReport(sessionFile: record.sessionFile, model: record.model)
        child.orphan = record.terminal == nil ? record.pid : nil
        machine = SessionMachine(record: record)
        services = SessionServices(launcher: launcher, logger: logger, observer: observer, persist: persist)
        toolImages = ToolImages(folder: imageDir)
        history = SessionHistory(maxEntries: historyEntries, maxBytes: historyBytes, spillPath: rawHistoryPath)
        questions = QuestionBook(interrupted: record.openQuestions ?? [])
    }

    /// The open questions, saved so that after a kill -9 their cards are closed (their buttons
    /// would answer nothing): a dialog dies with its pi, and a gate's call with the pi that waits
    /// on it (its extension denies what it cannot ask about).
    private var savedQuestions: [PendingQuestion]? {
        openQuestions.isEmpty ? nil : openQuestions
    }

    package var record: SessionRecord {
        SessionRecord(
            id: id, name: name, cwd: cwd, sessionFile: sessionFile, model: model, createdAt: createdAt,
            lastActivity: lastActivity, pid: terminal == nil ? pid : nil, runs: machine.runsNumbered, activeRun: activeRun,
            openQuestions: savedQuestions, terminal: terminal, spawnedBy: spawnedBy, marker: marker)
    }

    package var isRunning: Bool { pid != nil }

    // MARK: Child lifecycle

    /// Starts pi if it is not running and waits until it answers `get_state`. A pi that is
    /// missing or exits at start fails with its stderr.
    package func ensureRunning() async throws {
        if machine.lifecycle.ending { throw RemoteError(code: .unavailable, message: "session \(name) is ending") }
        if terminal != nil {
            guard input != nil else {
                throw RemoteError(
                    code: .unavailable,
                    message: "\(name) is a terminal session that is not attached right now (its pi is closed or reconnecting); nothing was sent")
            }
            return
        }
        if pid != nil, child.starting == nil { return }
        if let starting = child.starting { return try await starting.value }
        let task = Task { try await self.launch() }
        child.starting = task
        defer { child.starting = nil }
        try await task.value
    }

    private func launch() async throws {
        await stopOrphan()
        await launcher.secretsKnown()
        // Both waits above may outlast the session: one ended meanwhile starts no pi of its own.
        if machine.lifecycle.ending { throw RemoteError(code: .unavailable, message: "session \(name) is ending") }
        if let refusal = launcher.gatesRefusal(forSession: name) {
            logger.error("\(refusal)")
            throw SessionError.piFailed(refusal)
        }
        if terminal == nil { approvals.conversationEnded() }
        let gen = machine.lifecycle.launch(resuming: sessionFile != nil)
        let events = ChildEventQueue()
        let childInput = ChildInput(highWater: 64 << 20)
        child.launching(childInput)
        let spec = launcher.spec(cwd: cwd, sessionFile: sessionFile, sessionID: id, sessionName: name)
        if let problem = launcher.extensionProblem, !child.toldExtensionProblem {
            child.toldExtensionProblem = true
            await tell(.notice(kind: "error", text: "\(name): \(problem)."))
        }
        logger.info("session \(name) (\(id)): starting \(spec.executable) \(spec.arguments.joined(separator: " ")) in \(cwd)")
        // Unstructured on purpose: the child outlives this call; it belongs to the session and
        // is ended by `end()` or by its own exit.
        // A pi flooding its stdout waits on its pipe while this session is 4 MiB behind.
        let window = ReadWindow(limit: Self.readWindowBytes)
        Task {
            let exit = await ChildProcess.run(spec, input: childInput, events: ChildEventSink { events.append($0) }, window: window)
            events.append(.exited(exit))
            events.finish()
        }
        // On the pipe thread: pi's lines are handled where they are read (see PipePoller), all
        // those of one round of reads in one go.
        Task(executorPreference: PipePoller.shared) {
            while let batch = await events.next() { await self.handle(batch, generation: gen, window: window) }
        }
        do {
            let reply = try await command(.getState, timeout: launcher.startTimeout)
            applyState(reply)
            machine.lifecycle.answered()
            await services.persist(record)
            logger.info("session \(name): pi ready (pid \(pid ?? 0)), session file \(sessionFile ?? "none")")
        } catch {
            if let group = pid { ChildProcess.signalGroup(group, SIGKILL) }
            let why = child.lastExit.map { "pi \($0)" } ?? "pi did not answer get_state: \(error)"
            machine.lifecycle.failedToStart(why, exitSeen: child.lastExit != nil)
            // pi explains a failed start on stderr, often over several lines ("No models
            // available." comes first, hints follow): pass them on whole, not just the last few.
            let said = spokenLines(child.stderrTail.suffix(12))
            // Masked here, since the text reaches chats (and other machines) as well as logs.
            throw SessionError.piFailed(
                Redactor.redact("could not start pi for session \(name): \(why)" + (said.isEmpty ? "" : "\n" + said.joined(separator: "\n"))))
        }
    }

    private func applyState(_ response: PiResponse) {
        guard let data = try? response.data?.parse() else { return }
        reported.take(state: data)
    }

    /// A round of the child's events, in one hop onto the session.
    private func handle(_ batch: [ChildEvent], generation gen: Int, window: ReadWindow) async {
        for event in batch {
            await handle(event, generation: gen)
            window.handled(event)
        }
    }

    package func handle(_ event: ChildEvent, generation gen: Int) async {
        guard machine.lifecycle.isCurrent(gen) else { return }
        switch event {
        case .started(let childPID):
            child.pid = childPID
            extensionNotLoaded = nil
        case .stdout(.line(let bytes)):
            let piEvent: PiEvent
            do { piEvent = try child.reader.read(bytes) } catch {
                child.skipped()
                let preview = String(decoding: bytes.prefix(160), as: UTF8.self)
                logger.warning("session \(name): skipped a non-JSON line from pi's stdout: \(preview)")
                return
            }
            if terminal != nil, case .other(let type) = piEvent.type, await terminalNews(type, line: bytes) { return }
            switch piEvent.type {
            case .messageEnd, .toolExecutionStart, .toolExecutionEnd: history.spill(type: piEvent.type.wireName, line: bytes, at: Date())
            default: break
            }
            await apply(piEvent)
        case .stdoutOversized(let bytes, let prefix):
            child.skipped()
            let kind = OversizedLine.eventType(prefix)
            logger.warning("session \(name): skipped a \(bytes)-byte \(kind ?? "unknown") line from pi (over the line cap)")
            // The run's lifecycle must not hang on a record too big to read: an oversize
            // agent_end (it carries every message of the run) still ends the run.
            if kind == "agent_end" || kind == "agent_start" {
                let piEvent = PiEvent(type: PiEventType(wireName: kind!))
                record(piEvent)
                await perform(machine.apply(piEvent, at: .now, date: Date()))
            }
        case .stdout(.oversized(let bytes)):
            child.skipped()
            logger.warning("session \(name): skipped a \(bytes)-byte line from pi (over the line cap)")
        case .stdout(.unterminatedTail(let bytes)):
            logger.warning("session \(name): pi's stdout ended with an unterminated \(bytes)-byte line")
        case .stderr(let line):
            child.heard(stderr: line)
            logger.debug("session \(name) pi stderr: \(line)")
            if terminal == nil, extensionNotLoaded == nil, launcher.reportsExtensionFailure(line) { await extensionFailed(line) }
        case .exited(let exit):
            await childExited(exit)
        }
    }

    /// stderr lines worth showing: blank ones dropped, indentation kept.
    private func spokenLines<S: Sequence<String>>(_ lines: S) -> [String] {
        lines.filter { !$0.allSatisfy(\.isWhitespace) }
    }

    private func childExited(_ exit: ChildExit) async {
        child.exited(exit)?.finish()
        let reason = machine.lifecycle.exited(exit, stderr: spokenLines(child.stderrTail))
        await piGone(reason: reason, unanswered: "pi exited before answering (\(reason))", questionsClosed: "pi exited")
        if !machine.lifecycle.ending {
            logger.warning("session \(name): \(reason)")
            record(type: "exited", ["reason": .string(reason)])
            await tell(.exited(reason: reason))
        }
    }

    /// pi is gone (its child exited, or its terminal detached): commands in flight fail, a run
    /// in flight ends cut off, and open questions close, in the chats too.
    ///
    /// What the gone pi left open is settled before the first await: a new pi can start (a
    /// restart after a hung command) or a terminal attach again while the chats hear of this
    /// one, and its own first command, gates, questions and run must not be ended with it.
    package func piGone(reason: String, unanswered: String, questionsClosed: String) async {
        let gates = settleOpenGates(abandoned: questionsClosed)
        // Cleared before the save: a daemon restarted later must not close them a second time.
        let closed = questions.closeAll()
        let waiters = commands.drain()
        let actions = machine.childExited(reason: reason, date: Date())
        for waiter in waiters { waiter.resume(throwing: SessionError.piFailed(unanswered)) }
        await tellAbandoned(gates, questionsClosed)
        await services.persist(record)
        await perform(actions)
        for question in closed { await tell(.questionClosed(question, outcome: questionsClosed)) }
    }

    // MARK: Commands

    /// Sends one command and waits for the response that settles it.
    /// Without a `timeout`, `sessions.limits.commandSeconds`; a pi that does not answer in time
    /// is reported and restarted (`hung`).
    package func command(_ command: PiCommand, timeout: Duration? = nil) async throws -> PiResponse {
        let type = command.type
        // A dialog's answer carries the dialog's id and gets no response (pi-rpc spec §4).
        if case .extensionUIResponse = command {
            write(command)
            return PiResponse(id: nil, command: type, success: true)
        }
        if let extensionNotLoaded, command.carriesUserText {
            throw RemoteError(
                code: .unavailable,
                message:
                    "\(name)'s pi did not load pi-relayd's extension (\(extensionNotLoaded)), so its approval rules would not run: "
                    + "nothing was sent. Fix the extension (pi-relayd doctor), then restart the session")
        }
        let timeout = timeout ?? launcher.commandTimeout
        // A gate waiting for a person holds pi's tool_call, which pi's abort cannot end (pi
        // extension spec §11 trap 12): a stop closes its question now and the call is denied.
        if type == "abort" {
            machine.stopRequested()
            await abandonGates("the run was stopped")
            if machine.isBusy { await cancelDialogs("the run was stopped", by: type) }
        }
        let exclusive = PiCommandTable.mayFailWithoutID.contains(type)
        if exclusive { try await takeIDlessTurn(type, timeout: timeout) }
        defer { if exclusive { passIDlessTurn() } }
        // `compact` aborts a running agent before anything can refuse it (pi-rpc spec §5): the
        // run's questions go first, as for a stop. A `new_session` may be vetoed first (§5): its
        // run's gates go first all the same, since they would hold the abort that follows a
        // yes (trap 12), but its dialogs close only once it went through (below), and only
        // those open now (a new conversation's own may open meanwhile).
        var runDialogs: Set<String> = []
        if type == "compact", machine.isBusy {
            await abandonGates("the run was stopped")
            await cancelDialogs("the run was ended by compact", by: type)
        } else if type == "new_session", machine.isBusy {
            await abandonGates("the conversation was replaced")
            runDialogs = Set(questions.sorted.map(\.id))
        }
        guard let input else { throw RemoteError(code: .unavailable, message: "pi is not running for session \(name)") }
        let cid = commands.send(command)
        var obj = command.json
        obj["id"] = .string(cid)
        var line = obj.serializedBytes()
        line.append(0x0A)
        input.send(line)
        let response = try await withDeadline(timeout, onTimeout: { [weak self] in await self?.expire(cid, type: type, after: timeout) }) {
            try await withCheckedThrowingContinuation { commands.wait(cid, $0) }
        }
        // A query is no activity: the handshake of a pi restarted with the daemon must not
        // restart a session's idle clock (`sessions.limits.idleSeconds`).
        if !type.hasPrefix("get_") { machine.active(at: Date()) }
        if response.success == false {
            throw SessionError.piFailed("pi refused \(type): \(Self.clean(response.error ?? "unknown error"))")
        }
        if type == "new_session", !runDialogs.isEmpty, (try? response.data?.parse())?["cancelled"]?.boolValue != true {
            await cancelDialogs("the conversation was replaced", by: type, only: runDialogs)
        }
        return response
    }

    /// Waits until no other command that may fail without an id is in flight: pi's id-less
    /// failure then belongs to the one command that can have caused it, whatever else (a slow
    /// compaction, an abort waiting on a dialog) is outstanding.
    private func takeIDlessTurn(_ type: String, timeout: Duration) async throws {
        guard !commands.takeIDlessTurn() else { return }
        let key = UUID()
        try await withDeadline(timeout, onTimeout: { [weak self] in await self?.giveUpIDlessTurn(key, type: type, after: timeout) }) {
            try await withCheckedThrowingContinuation { commands.queueForIDlessTurn(key, $0) }
        }
    }

    private func passIDlessTurn() {
        commands.passIDlessTurn()?.resume()
    }

    private func giveUpIDlessTurn(_ key: UUID, type: String, after timeout: Duration) {
        commands.leaveIDlessTurn(key)?.resume(
            throwing: RemoteError.timeout("pi was busy with an earlier command; \(type) was not sent within \(timeout)"))
    }

    private func expire(_ cid: String, type: String, after timeout: Duration) {
        guard let waiter = commands.expire(cid) else { return }
        waiter.resume(throwing: RemoteError.timeout("pi did not answer \(type) within \(timeout)"))
        // Unstructured on purpose: this runs in the command's timer, which is cancelled as soon
        // as the command has failed, and the restart must outlive it.
        Task { await self.hung(type, after: timeout) }
    }

    /// How pi refuses a prompt that found another one already past its streaming check.
    package static let alreadyProcessing = "Agent is already processing a prompt"

    private func sendAsFollowUp(_ message: String, images: [JSONValue]) async {
        do { _ = try await command(.followUp(message: message, images: images)) } catch {
            let text = "pi refused a prompt that was waiting for the run before it: \(error)"
            record(type: "prompt_rejected", ["error": .string(text)])
            await tell(.notice(kind: "error", text: text))
        }
    }

    /// pi wraps thrown errors as "Failed to parse command: <real message>".
    package static func clean(_ error: String) -> String {
        error.hasPrefix("Failed to parse command: ") ? String(error.dropFirst("Failed to parse command: ".count)) : error
    }

    /// Waits while pi compacts, then for the settle window that follows, so that a prompt sent
    /// after starts a run of its own; at most `limit` (a compaction's own bound). pi-rpc §2: a
    /// `compact` detaches pi's events, and a prompt sent meanwhile runs with nobody told, in a
    /// context the compaction then replaces (pi extension spec §11 trap 7). A threshold
    /// compaction after a run (§3) leaves pi idle: a prompt sent then runs at once, and its
    /// events were taken for the compacted run's. Polled: compactions are rare and long. Throws
    /// when cancelled (the daemon stopping): the prompt is then not sent into the compaction, and
    /// its chat's message is handed over again at the next start. A retry's back-off holds it
    /// too: pi is not streaming then (pi-rpc spec §3), so the prompt would run at once as a run
    /// of its own, and the retry it pre-empts never come (trap 7); after the retry's start it
    /// queues behind it.
    package func untilCompacted(limit: Duration = .seconds(600)) async throws {
        let deadline = ContinuousClock.now + limit
        var held = false
        while ContinuousClock.now < deadline,
            commands.awaits("compact") || machine.isCompacting || machine.isRetrying || (held && machine.isSettling)
        {
            held = true
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// pi said on stderr that it could not load our extension, and runs without it (pi extension
    /// spec §1.2). With approval rules, nothing would ask about its calls: its prompts are
    /// refused (`command`), a run that raced ahead is stopped, and the chats and `status` say
    /// why. Without rules, only its relay tools are missing: the chats are told.
    private func extensionFailed(_ line: String) async {
        // pi writes it in red.
        let said = Dialect.unstyled(line)
        let gated = launcher.hasGates(forSession: name)
        extensionNotLoaded = gated ? said : nil
        logger.error("session \(name): pi did not load pi-relayd's extension: \(said)")
        record(type: "extension_not_loaded", ["gated": .bool(gated), "line": .string(said)])
        let consequence =
            gated
            ? "its approval rules would not run, so its prompts are refused until a pi that loads it runs (pi-relayd doctor)"
            : "its relay tools (files, notices, spawned sessions) are missing"
        await tell(.notice(kind: "error", text: "\(name): pi did not load pi-relayd's extension (\(said)): \(consequence)."))
        if gated, machine.isBusy {
            // Unstructured on purpose: the abort's answer comes through this same event loop.
            Task { _ = try? await self.command(.abort) }
        }
    }

    /// Writes a command that gets no response (dialog answers).
    private func write(_ command: PiCommand) {
        guard let input else { return }
        var line = command.json.serializedBytes()
        line.append(0x0A)
        input.send(line)
    }

    // MARK: Events

    private func apply(_ event: PiEvent) async {
        switch event.type {
        case .response:
            guard let response = event.response else { return }
            let (match, waiter) = commands.received(response)
            switch match {
            case .settles(_, let type):
                // A refused `compact` ended the run all the same: pi aborts a running agent before
                // an extension can veto it or the summary can fail (pi-rpc spec §2).
                if type == "compact", response.success != true { await perform(machine.abortedSilently(by: type, date: Date())) }
                if type == "compact" || type == "new_session" || type == "switch_session", response.success == true, !response.vetoed {
                    await perform(machine.abortedSilently(by: type, date: Date()))
                    record(type: type == "compact" ? "compacted" : "new_conversation", [:])
                    if type != "compact" {
                        // Answered after its caller stopped waiting: nobody else learns pi's new file.
                        if waiter == nil {
                            // Unstructured on purpose: `get_state`'s answer comes through this same
                            // event loop, which must not wait for it.
                            Task { try? await self.refreshState() }
                        }
                        if terminal == nil { approvals.conversationEnded() }
                        await tell(.queue(.emptied(because: "a new conversation was started, which empties pi's queue with your queued message")))
                    }
                }
                if type == "abort", response.success == true { await perform(machine.abortAnswered(date: Date())) }
                // `abort` and `compact` stop a run but keep pi's queue (pi-rpc spec §5, §2). A
                // terminal's extension tells of its own (docs/EXTENSION.md, reason stop).
                if type == "abort" || type == "compact", response.success == true, terminal == nil { await tell(.queue(.keptAfterStop)) }
                waiter?.resume(returning: response)
            case .promptRejectedLate(let id, let error):
                // pi-rpc spec §5: a prompt sent while the one before was in its pre-run phase is
                // refused once that run starts. It is not lost: it waits for the run's end.
                if error.hasPrefix(Self.alreadyProcessing), let prompt = commands.takePrompt(id) {
                    record(type: "prompt_requeued", ["text": .string(String(prompt.message.prefix(200)))])
                    // Unstructured on purpose: its answer comes through this same event loop,
                    // which must not wait for it.
                    Task { await self.sendAsFollowUp(prompt.message, images: prompt.images) }
                    return
                }
                machine.promptRefused()
                let text = "pi rejected the prompt: \(Self.clean(error))"
                record(type: "prompt_rejected", ["error": .string(Self.clean(error))])
                await tell(.notice(kind: "error", text: text))
            case .duplicate, .unmatched:
                break
            }
            return
        case .extensionUIRequest:
            // Every event of pi's but a response is activity (`SessionMachine.apply`), these too.
            machine.active(at: Date())
            if let request = event.extensionUIRequest { await uiRequest(request) }
            return
        case .extensionError where !machine.isBusy:
            machine.active(at: Date())
            let failure = event.extensionError
            let text = "extension error (\(failure?.extensionPath ?? "?"), \(failure?.event ?? "?")): \(failure?.error ?? "")"
            record(type: "extension_error", ["text": .string(text)])
            await tell(.notice(kind: "extension-error", text: text))
            return
        default:
            break
        }
        record(event)
        // A user message is a prompt pi has taken: a follow-up queued behind a turn is taken now.
        if event.type == .messageStart, let message = event.message, message.role == "user", let text = message.text {
            // pi runs a queued follow-up inside the same run (pi-rpc spec §5): from here the run
            // works for the chat that sent it, whose gates and files must go to that chat, not
            // to the one whose prompt started the run.
            if let origin = machine.health.promptTaken(text) { machine.promptOrigin = origin }
            await tell(.promptTaken(text: text))
        }
        if event.type == .toolExecutionEnd, let execution = event.toolExecution, let imgs = execution.images, !imgs.isEmpty {
            toolImages.keep(imgs, tool: execution.toolName ?? "tool")
        }
        await perform(machine.apply(event, at: .now, date: Date()))
    }

    /// Does what the machine asks, in order.
    private func perform(_ actions: [SessionMachine.Action]) async {
        for action in actions {
            switch action {
            case .forgetImages:
                toolImages.forget()
            case .save:
                await services.persist(record)
            case .tell(let news):
                await tell(news)
            case .offer(let run):
                if await !services.observer.session(self, changed: run) { machine.changeTaken() }
            case .record(let type, let preview):
                record(type: type, preview)
            case .settleAfter(let window):
                // Unstructured on purpose: a one-shot timer that re-checks the run after the window.
                Task { [weak self] in
                    try? await Task.sleep(for: window + .milliseconds(20))
                    await self?.settle()
                }
            case .saveIfEnded(let runID):
                // The next run may have started while this final was being delivered.
                if machine.runEnded(runID) { await services.persist(record) }
            case .abort:
                record(type: "stop_kept", ["reason": "stopped before its run started"])
                // Unstructured on purpose: the abort's answer comes through this same event
                // loop, which must not wait for it.
                Task {
                    do { _ = try await self.command(.abort) } catch {
                        await self.tell(.notice(kind: "error", text: "pi did not take the stop: \(error)"))
                    }
                }
            }
        }
    }

    /// Passes news on to the observer, on the cooperative pool (finals go through the formatter
    /// and onto disk), awaited, so the order holds. Run changes go the cheap way: `emit`.
    package func tell(_ news: SessionNews) async {
        let observer = services.observer
        let id = id
        await withTaskExecutorPreference(globalConcurrentExecutor) {
            await observer.session(id, did: news)
        }
    }

    /// The run in progress, when it is another run or has changed since `seen` (for `stream`
    /// clients that render it).
    package func runInProgress(changedSince seen: RunRevision?) -> (RunView, RunRevision)? {
        guard let run = machine.run else { return nil }
        let now = RunRevision(runID: run.runID, revision: run.revision)
        return now == seen ? nil : (run.view, now)
    }

    /// The current run as it is now, for an observer told that it changed (its next change is
    /// told again). Nil once that run is over: its final is on its way.
    package func liveRun(_ runID: String) -> RunRecord? {
        machine.fetch(runID)
    }

    private func settle() async {
        await perform(machine.settle(at: .now, date: Date()))
    }

    /// A compact preview of an event for history and `stream`.
    package func record(_ event: PiEvent) {
        switch event.type {
        case .messageUpdate:
            guard let update = event.assistantMessageEvent, let delta = update.delta else { return }
            if update.type == .textDelta {
                recordDelta("text_delta", delta)
            } else if update.type == .thinkingDelta {
                recordDelta("thinking_delta", delta)
            }
        case .messageStart:
            record(type: "message_start", ["role": JSONValue(event.message?.role)])
        case .messageEnd:
            guard let message = event.message else { return }
            var preview: JSONValue = ["role": JSONValue(message.role)]
            if let reason = message.stopReason { preview["stopReason"] = .string(reason) }
            if let err = message.errorMessage { preview["errorMessage"] = .string(err) }
            record(type: "message_end", preview)
        case .toolExecutionStart:
            let execution = event.toolExecution
            record(
                type: "tool_execution_start",
                ["toolName": JSONValue(execution?.toolName), "args": .string(String((execution?.args?.text ?? "").prefix(300)))])
        case .toolExecutionEnd:
            let execution = event.toolExecution
            record(type: "tool_execution_end", ["toolName": JSONValue(execution?.toolName), "isError": .bool(execution?.isError ?? false)])
        case .toolExecutionUpdate:
            return
        case .autoRetryStart:
            let retry = event.autoRetry
            record(
                type: "auto_retry_start",
                [
                    "attempt": JSONValue(retry?.attempt ?? 0), "delayMs": JSONValue(retry?.delayMs ?? 0),
                    "errorMessage": JSONValue(retry?.errorMessage),
                ])
        case .autoRetryEnd:
            record(
                type: "auto_retry_end", ["success": .bool(event.autoRetry?.success ?? false), "finalError": JSONValue(event.autoRetry?.finalError)])
        case .autoCompactionStart:
            record(type: "auto_compaction_start", ["reason": JSONValue(event.autoCompaction?.reason)])
        case .autoCompactionEnd:
            let compaction = event.autoCompaction
            record(type: "auto_compaction_end", ["willRetry": .bool(compaction?.willRetry ?? false), "aborted": .bool(compaction?.aborted ?? false)])
        case .extensionError:
            record(type: "extension_error", ["error": JSONValue(event.extensionError?.error)])
        default:
            record(type: event.type.wireName, [:])
        }
    }

    // MARK: Questions

    private func uiRequest(_ request: PiExtensionUIRequest) async {
        guard let qid = request.id, let method = request.method else { return }
        switch method {
        case "select", "confirm", "input", "editor":
            var expires: Date?
            if let ms = request.timeout, ms > 0 {
                expires = Date().addingTimeInterval(Double(ms) / 1000)
            } else if terminal == nil, method != "editor" || request.timeout == nil, let limit = launcher.dialogTimeout {
                // Not for a terminal's question: its dialog is open at the desk too, and the
                // person there may still answer after the chats have gone quiet.
                expires = Date().addingTimeInterval(Double(limit.components.seconds))
            }
            let question = PendingQuestion(
                id: qid, sessionID: id, method: method, title: request.title ?? "",
                message: request.message, options: request.options ?? [], placeholder: request.placeholder,
                prefill: request.prefill, askedAt: Date(), expiresAt: expires, terminalOnly: request.terminalOnly ? true : nil)
            questions.ask(question)
            record(type: "question", question.json)
            // Saved before any chat shows it, so a daemon killed meanwhile still closes it there.
            await services.persist(record)
            if let expires {
                let policyTimeout = request.timeout == nil
                // Unstructured on purpose: the dialog's own countdown runs beside the session.
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(max(0, expires.timeIntervalSinceNow)))
                    await self?.expireQuestion(qid, cancelOnPi: policyTimeout)
                }
            }
            await tell(.questionAsked(question))
        case "notify":
            record(type: "notify", ["message": JSONValue(request.message), "notifyType": JSONValue(request.notifyType)])
            await tell(.notice(kind: request.notifyType ?? "info", text: request.message ?? ""))
        default:
            var preview: JSONValue = ["method": .string(method)]
            if let text = request.title { preview["title"] = .string(text) }
            if let key = request.statusKey { preview["statusKey"] = .string(key) }
            if let text = request.statusText { preview["statusText"] = .string(text) }
            if let key = request.widgetKey { preview["widgetKey"] = .string(key) }
            if let text = request.text { preview["text"] = .string(String(text.prefix(200))) }
            record(type: "ui", preview)
        }
    }

    /// pi already resolved a timed-out dialog with its default, silently; ours closes it too.
    /// A dialog closed by our own policy (it had no timeout) is cancelled on pi's side.
    private func expireQuestion(_ qid: String, cancelOnPi: Bool) async {
        guard let question = questions.close(qid) else { return }
        if cancelOnPi { write(.extensionUIResponse(id: question.id, .cancelled)) }
        record(type: "question_expired", ["id": .string(qid)])
        await services.persist(record)
        await tell(.questionClosed(question, outcome: "expired: no answer in time"))
    }

    /// An extension's dialog open when a spawned session's run is stopped. One without an abort
    /// signal (rpc-demo's gate) would hold pi's `abort` until someone answers; one with it is
    /// resolved by pi silently (pi-rpc spec §4), and its card would stay open, answerable, for
    /// ever. Both are cancelled on pi and closed in the chats first. A terminal's dialogs are
    /// the terminal's: its extension closes their copies (`extension_ui_closed`).
    private func cancelDialogs(_ why: String, by command: String, only: Set<String>? = nil) async {
        guard terminal == nil else { return }
        for question in questions.sorted where !isGate(question.id) && only.map({ $0.contains(question.id) }) ?? true {
            guard let closed = questions.close(question.id) else { continue }
            await cancelledOnPi(closed, by: command, outcome: "closed: \(why) before anyone answered")
        }
    }

    /// A dialog closed here without an answer: pi's is cancelled, the history says by whom, and
    /// the chats' copies close with `outcome`.
    private func cancelledOnPi(_ question: PendingQuestion, by who: String, outcome: String) async {
        write(.extensionUIResponse(id: question.id, .cancelled))
        record(type: "question_cancelled", ["id": .string(question.id), "by": .string(who)])
        await services.persist(record)
        await tell(.questionClosed(question, outcome: outcome))
    }

    /// Another extension's question in a terminal pi: the extension sees it but cannot answer it.
    package static let terminalOnlyRefusal = RemoteError.invalidParams("This question can only be answered in the terminal.")

    /// The first answer wins; a later one finds no question.
    package func answer(_ qid: String, value: String, by who: String) async throws -> PendingQuestion {
        if isGate(qid) { return try await answerGate(qid, value: value, by: who) }
        guard let question = questions[qid] else {
            throw RemoteError(code: .notFound, message: "no open question \(qid) in session \(name) (already answered or expired)")
        }
        if question.terminalOnly == true { throw Self.terminalOnlyRefusal }
        let answer: PiUIAnswer
        do { answer = try question.answer(for: value) } catch { throw RemoteError.invalidParams("\(error)") }
        questions.close(qid)
        write(.extensionUIResponse(id: question.id, answer))
        let shown: String
        switch answer {
        case .confirmed(let confirmed): shown = confirmed ? "yes" : "no"
        case .value(let chosen): shown = chosen
        case .cancelled: shown = value
        }
        record(type: "question_answered", ["id": .string(qid), "answer": .string(shown), "by": .string(who)])
        await services.persist(record)
        await tell(.questionClosed(question, outcome: "\(who) answered: \(shown)"))
        return question
    }

    package func cancel(_ qid: String, by who: String) async throws -> PendingQuestion {
        if questions[qid]?.terminalOnly == true { throw Self.terminalOnlyRefusal }
        if isGate(qid), let question = questions[qid] {
            await decideGate(qid, ApprovalDecision(outcome: .denied, by: who, reason: "\(who) cancelled it"), outcome: "\(who) cancelled it")
            return question
        }
        guard let question = questions.close(qid) else {
            throw RemoteError(code: .notFound, message: "no open question \(qid) in session \(name)")
        }
        await cancelledOnPi(question, by: who, outcome: "\(who) cancelled it")
        return question
    }

    package var openQuestions: [PendingQuestion] { questions.sorted }

    // MARK: History and watchers

    package func record(type: String, _ preview: JSONValue) {
        history.record(type: type, preview, session: name, at: Date())
    }

    private func recordDelta(_ type: String, _ delta: String) {
        history.recordDelta(type, delta, session: name, at: Date())
    }

    package func historyEntries(types: Set<String>?, since: Date?, limit: Int, raw: Bool = false) -> [JSONValue] {
        history.entries(types: types, since: since, limit: limit, raw: raw)
    }

    /// The session ended for good: its spilled payloads go (`history --raw`).
    package func dropRawHistory() {
        history.dropSpill()
    }

    /// A line for `/recent` that no pi event gives: a prompt, with who sent it.
    package func noteActivity(_ text: String) {
        history.note(text)
    }

    package var activity: ActivityLog { history.activity }
    package var historyCount: Int { history.count }
    package var historyBytes: Int { history.bytes }

    package func watch() -> (UUID, AsyncStream<JSONValue>) { history.watch() }

    package func unwatch(_ key: UUID) { history.unwatch(key) }

    // MARK: Naming and ending

    package func rename(_ newName: String) async {
        name = newName
        machine.rename(newName)
        await services.persist(record)
        if pid != nil { _ = try? await command(.setSessionName(newName), timeout: .seconds(10)) }
    }

    /// Reads pi's state again and saves what matters of it: after `new_session` pi writes to a
    /// new session file (the one to resume after a restart), and pi may clamp a thinking level.
    package func refreshState() async throws {
        let reply = try await command(.getState, timeout: .seconds(30))
        applyState(reply)
        await services.persist(record)
    }

    package func noteModel(_ modelName: String) async {
        reported.model = modelName
        await services.persist(record)
    }

    /// Close stdin, then TERM, then KILL the process group. A terminal's pi is the user's: it
    /// is only let go.
    package func end() async {
        machine.lifecycle.end()
        history.endWatching()
        if terminal != nil {
            input?.finish()
            return
        }
        // A pi still starting is waited for (its launch starts none once this session is ending),
        // and one left running by the daemon before a restart is stopped here, not left behind.
        if let starting = child.starting { _ = try? await starting.value }
        await stopOrphan()
        guard let group = pid else { return }
        input?.finish()
        for _ in 0..<40 where pid != nil { try? await Task.sleep(for: .milliseconds(50)) }
        // The group outlives pi when something pi started (a tool's server, say) is still in it:
        // that gets TERM and KILL too. pi leads the group, so its pid names the group.
        if groupAlive(group) { Self.signalGroupOnly(group, SIGTERM) }
        for _ in 0..<40 where groupAlive(group) { try? await Task.sleep(for: .milliseconds(50)) }
        if groupAlive(group) { Self.signalGroupOnly(group, SIGKILL) }
        for _ in 0..<40 where groupAlive(group) { try? await Task.sleep(for: .milliseconds(50)) }
    }

    /// The pi a daemon killed before left running (`SessionRecord.pid`): stopped once, by the
    /// launch that replaces it or by the session's end.
    private func stopOrphan() async {
        guard let old = child.orphan else { return }
        child.orphan = nil
        await OrphanChild.stop(old, cwd: cwd, logger: logger)
    }

    private func groupAlive(_ group: Int32) -> Bool {
        pid != nil || Self.leftInGroup(group)
    }

    /// Through `UnreapedChildren` while pi is not reaped; after, only to what is left in its
    /// group (`leftInGroup`). Never the pid alone: once pi is reaped its pid may belong to
    /// someone else.
    private static func signalGroupOnly(_ group: Int32, _ signal: Int32) {
        guard group > 0, !UnreapedChildren.signalGroup(group, signal), leftInGroup(group) else { return }
        kill(-group, signal)
    }

    /// Whether something pi started is still in its group, pi being reaped. The group's id (pi's
    /// pid) stays reserved while the group has a member: no process can have it as its pid. Once
    /// the group is empty the number is free, and a new process that has it (another session's
    /// pi leads a group of that id) answers to it as a pid: then the group is not ours.
    private static func leftInGroup(_ group: Int32) -> Bool {
        if kill(group, 0) == 0 || errno != ESRCH { return false }
        return kill(-group, 0) == 0
    }

    package func summary() -> SessionSummary {
        var summary = SessionSummary(id: id, name: name, cwd: cwd, state: state.name)
        summary.lastActivity = ISO8601.string(lastActivity)
        summary.questions = questions.count
        summary.approvals = approvals.openGates.count { questions[$0] != nil }
        if case .exited(let reason) = state { summary.exitReason = Redactor.redact(reason) }
        summary.sessionFile = sessionFile
        summary.model = model
        summary.thinkingLevel = thinkingLevel
        summary.pid = pid.map { Int($0) }
        summary.kind = terminal == nil ? "spawned" : "terminal"
        summary.marker = marker
        return summary
    }
}
