import Foundation
import Logging
import PiRelaySDK

/// One plugin under supervision: its process, handshake, liveness, restart policy, outbox and
/// the requests pending on it. Everything in flight lives here, not in the plugin, so a crash
/// loses nothing.
actor PluginSlot {
    let name: String
    private(set) var path: String
    private(set) var fingerprint: String
    let home: Home
    let options: PluginHostOptions
    let logger: Logger
    let stderrLog: RotatingLog
    let router: any PluginRouter

    private(set) var state: PluginState = .starting
    private(set) var reason: String?
    private(set) var hello: Hello?
    private(set) var pid: Int32?
    private(set) var stderrTail: [String] = []
    private(set) var restarts = 0
    private(set) var startedAt: Date?
    private var policy: RestartPolicy
    private var outbox: Outbox
    private var pending: [String: PendingRequest] = [:]
    private var nextRequest = 0
    private var input: ChildInput?
    private var generation = 0
    private var lastPingSent: ContinuousClock.Instant?
    private var lastPong: ContinuousClock.Instant = .now
    private var pingSeq = 0
    private var stopRequested = false
    private var restartRequested = false
    private var rearm: AsyncStream<Void>.Continuation?
    private var killReason: String?

    struct PendingRequest {
        var method: String
        var params: JSONValue
        var continuation: CheckedContinuation<JSONValue, any Error>
        /// Instances that died while this request was in flight on them.
        var crashes = 0
        var sentToGeneration: Int?
    }

    init(found: PluginDiscovery.Found, home: Home, options: PluginHostOptions, logger: Logger, router: any PluginRouter) {
        name = found.name
        path = found.path
        fingerprint = found.fingerprint
        self.home = home
        self.options = options
        self.logger = logger
        self.router = router
        stderrLog = RotatingLog(path: home.logFile(found.name), maxBytes: options.logMaxBytes, keep: options.logKeep)
        policy = RestartPolicy(options: options.restart)
        outbox = Outbox(path: home.outboxDir + "/" + found.name + ".jsonl", limit: options.outboxLimit)
    }

    // MARK: Supervision loop

    /// Runs the plugin until it is stopped, restarting it as the policy says.
    func run() async {
        while !stopRequested && !Task.isCancelled {
            if state == .failed || state == .notConfigured {
                let (wake, cont) = AsyncStream<Void>.makeStream()
                rearm = cont
                for await _ in wake { break }
                rearm = nil
                continue
            }
            let outcome = await runInstance()
            if stopRequested { break }
            if restartRequested {
                restartRequested = false
                continue
            }
            let action = policy.exited(outcome, at: .now, random: Double.random(in: 0..<1))
            switch action {
            case .restart(let delay):
                state = .backoff
                restarts += 1
                if delay > .zero {
                    logger.info("plugin \(name): restarting in \(delay.inMilliseconds) ms")
                    try? await Task.sleep(for: delay)
                } else {
                    logger.info("plugin \(name): restarting at once")
                }
            case .markFailed(let why):
                state = .failed
                reason = [why, reason].compactMap { $0 }.joined(separator: "; last exit: ")
                logger.error("plugin \(name): failed: \(reason ?? why). Re-arm with: pi-relayd plugins restart \(name)")
                failAllPending(RemoteError(code: .unavailable, message: "plugin \(name) failed: \(why)"))
            case .markNotConfigured:
                state = .notConfigured
                logger.warning("plugin \(name): not configured: \(reason ?? "exit status 78"); not restarting")
                failAllPending(RemoteError(code: .unavailable, message: "plugin \(name) is not configured"))
            case .stop:
                state = .stopped
                return
            }
        }
        state = .stopped
        failAllPending(RemoteError(code: .unavailable, message: "plugin \(name) stopped"))
    }

    private enum SlotEvent: Sendable {
        case child(ChildEvent)
        case handshakeDeadline
        case tick
        case response(generation: Int, WireMessage)
    }

    private func runInstance() async -> RestartPolicy.Exit {
        generation += 1
        let gen = generation
        state = .starting
        hello = nil
        reason = nil
        killReason = nil
        stderrTail = []
        let (events, sink) = AsyncStream<SlotEvent>.makeStream()
        let childInput = ChildInput()
        let spec = ChildSpec(
            executable: path,
            environment: [
                "PI_RELAY_PLUGIN": "1", "PI_RELAY_PROTOCOL": "\(WireMessage.protocolVersion)",
                "PI_RELAYD_HOME": home.root,
            ],
            workingDirectory: home.pluginStateDir(name),
            maxLineBytes: options.maxLineBytes)
        try? FileManager.default.createDirectory(
            atPath: spec.workingDirectory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        var handshaken = false
        var incompatible = false
        var exit: ChildExit = .spawnFailed("no exit seen")

        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let e = await ChildProcess.run(
                    spec, input: childInput,
                    events: ChildEventSink { sink.yield(.child($0)) })
                sink.yield(.child(.exited(e)))
            }
            let handshakeTimeout = options.handshakeTimeout
            group.addTask {
                try? await Task.sleep(for: handshakeTimeout)
                sink.yield(.handshakeDeadline)
            }
            let interval = options.pingInterval
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    sink.yield(.tick)
                }
            }
            loop: for await event in events {
                switch event {
                case .child(.started(let pid)):
                    self.pid = pid
                    startedAt = Date()
                    logger.info("plugin \(name): spawned \(path) pid \(pid)")
                case .child(.stderr(let line)):
                    stderrLog.append(Redactor.redact(line))
                    stderrTail.append(line)
                    if stderrTail.count > 20 { stderrTail.removeFirst(stderrTail.count - 20) }
                case .child(.stdout(.line(let bytes))):
                    if !handshaken {
                        switch handshake(bytes, input: childInput) {
                        case .ok: handshaken = true
                        case .incompatible: incompatible = true
                        case .rejected(let why):
                            killReason = why
                            logger.error("plugin \(name): \(why)")
                            if let pid { ChildProcess.signalGroup(pid, SIGKILL) }
                        }
                        if handshaken, let hello {
                            sendWelcome(await router.welcome(plugin: name))
                            await router.pluginReady(plugin: name, hello: hello)
                        }
                    } else {
                        receive(bytes, generation: gen, group: &group, sink: sink)
                    }
                case .child(.stdoutOversized(let n, _)), .child(.stdout(.oversized(let n))):
                    logger.warning("plugin \(name): skipped a \(n)-byte line from stdout (over the \(options.maxLineBytes)-byte cap)")
                case .child(.stdout(.unterminatedTail(let n))):
                    logger.warning("plugin \(name): stdout ended with an unterminated \(n)-byte line; not parsed")
                case .child(.exited(let e)):
                    exit = e
                    break loop
                case .handshakeDeadline:
                    if !handshaken && !incompatible && killReason == nil {
                        killReason = "sent no hello within \(options.handshakeTimeout.components.seconds) s"
                        logger.error("plugin \(name): \(killReason!)")
                        if let pid { ChildProcess.signalGroup(pid, SIGKILL) }
                    }
                case .tick:
                    if handshaken { checkLiveness(gauge: childInput) }
                case .response(let g, let message):
                    if g == gen { send(message) }
                }
            }
            group.cancelAll()
        }
        childInput.finish()
        input = nil
        let wasPid = pid
        pid = nil
        // A request in flight on the dead instance goes to the next one, unless it was in flight
        // during two crashes in a row: then it is poison and fails instead.
        let crashed = !(stopRequested || restartRequested) || exit != .exited(0)
        for (id, var p) in pending where p.sentToGeneration == gen {
            // Whatever was in flight goes to the next instance.
            p.sentToGeneration = nil
            if crashed { p.crashes += 1 }
            if p.crashes >= 2 {
                pending.removeValue(forKey: id)
                logger.error("plugin \(name): request \(p.method) was in flight during 2 crashes; failing it as poison")
                p.continuation.resume(throwing: RemoteError(code: .poison, message: "\(p.method) crashed plugin \(name) twice; not retried"))
            } else {
                pending[id] = p
            }
        }
        let tail = stderrTail.suffix(3).joined(separator: " | ")
        if incompatible {
            logger.error("plugin \(name): \(reason ?? "incompatible protocol")")
            return .incompatible
        }
        if case .spawnFailed(let why) = exit {
            reason = why
            logger.error("plugin \(name): \(why)")
            return .crash
        }
        if exit == .exited(78) {
            reason = stderrTail.last ?? "exit status 78"
            logger.warning("plugin \(name) (pid \(wasPid ?? 0)) exited with status 78 (not configured): \(reason!)")
            return .notConfigured
        }
        if (stopRequested || restartRequested) && handshaken {
            logger.info("plugin \(name) (pid \(wasPid ?? 0)) \(exit)")
            return .requested
        }
        var why = "\(exit)"
        if let k = killReason { why = "\(k); \(exit)" } else if !handshaken { why = "exited before its hello (\(exit))" }
        if !tail.isEmpty { why += "; stderr: \(tail)" }
        reason = why
        logger.error("plugin \(name) (pid \(wasPid ?? 0)) \(why)")
        return .crash
    }

    private enum HandshakeResult { case ok, incompatible, rejected(String) }

    private func handshake(_ bytes: [UInt8], input: ChildInput) -> HandshakeResult {
        let preview = String(decoding: bytes.prefix(120), as: UTF8.self)
        guard let message = try? WireMessage.decode(bytes), case .hello(let h) = message else {
            return .rejected("expected a hello as the first line, got: \(preview)")
        }
        guard h.protocol == WireMessage.protocolVersion else {
            let why = "unsupported protocol \(h.protocol); this pi-relayd speaks \(WireMessage.protocolVersion)"
            reason = "speaks protocol \(h.protocol), this pi-relayd speaks \(WireMessage.protocolVersion)"
            let line = WireMessage.goodbye(reason: why).encodedLine()
            input.send(line)
            input.finish()
            return .incompatible
        }
        hello = h
        // Writable now, but `running` (so new traffic flows) only once the welcome is out.
        self.input = input
        policy.started(at: .now)
        lastPong = .now
        lastPingSent = nil
        logger.info("plugin \(name): hello: \(h.name) \(h.version), protocol \(h.protocol), roles \(h.roles)")
        return .ok
    }

    /// Sends the welcome, then everything that waited for this instance.
    private func sendWelcome(_ welcome: Welcome) {
        guard input != nil, state == .starting else { return }
        send(.welcome(welcome))
        for entry in outbox.entries {
            send(.deliver(id: entry.id, method: entry.method, params: entry.params))
        }
        for (id, var p) in pending where p.sentToGeneration == nil {
            p.sentToGeneration = generation
            pending[id] = p
            send(.request(id: id, method: p.method, params: p.params, deadlineMs: nil))
        }
        state = .running
    }

    private func receive(
        _ bytes: [UInt8], generation gen: Int, group: inout TaskGroup<Void>,
        sink: AsyncStream<SlotEvent>.Continuation
    ) {
        let message: WireMessage
        do { message = try WireMessage.decode(bytes) } catch {
            let preview = String(decoding: bytes.prefix(120), as: UTF8.self)
            logger.warning("plugin \(name): skipped a malformed line (\(error)): \(preview)")
            return
        }
        switch message {
        case .response(let id, let result):
            guard let p = pending.removeValue(forKey: id) else { return }
            switch result {
            case .success(let v): p.continuation.resume(returning: v)
            case .failure(let e): p.continuation.resume(throwing: e)
            }
        case .ack(let id):
            outbox.ack(id)
        case .pong:
            lastPong = .now
        case .request(let id, let method, let params, _):
            let router = router
            let name = name
            group.addTask {
                let result: Result<JSONValue, RemoteError>
                do {
                    result = .success(try await router.handle(plugin: name, method: method, params: params))
                } catch let e as RemoteError {
                    result = .failure(e)
                } catch {
                    result = .failure(RemoteError(code: .internal, message: "\(error)"))
                }
                sink.yield(.response(generation: gen, .response(id: id, result: result)))
            }
        case .notify(let method, let params):
            let router = router
            let name = name
            group.addTask { await router.notification(plugin: name, method: method, params: params) }
        case .hello:
            logger.warning("plugin \(name): ignored a second hello")
        case .unknown(let type, _):
            logger.warning("plugin \(name): ignored a message of unknown type \(type)")
        default:
            logger.warning("plugin \(name): ignored an unexpected \(message.json["type"]?.stringValue ?? "?") message")
        }
    }

    private func checkLiveness(gauge: ChildInput) {
        let now = ContinuousClock.now
        if let over = gauge.overFor, over > options.stalledInputLimit {
            hang("is not reading its stdin (\(gauge.pending) bytes queued for \(over.components.seconds) s)")
            return
        }
        if let sent = lastPingSent, lastPong < sent, now - sent > options.pingTimeout {
            hang("missed pongs for \(options.pingTimeout.components.seconds) s")
            return
        }
        if lastPingSent == nil || lastPong >= lastPingSent! {
            pingSeq += 1
            lastPingSent = now
            send(.ping(id: "ping-\(pingSeq)"))
        }
    }

    private func hang(_ why: String) {
        killReason = "hung: \(why); killed"
        logger.error("plugin \(name) \(why); killing its process group")
        if let pid { ChildProcess.signalGroup(pid, SIGKILL) }
    }

    private func send(_ message: WireMessage) {
        input?.send(message.encodedLine())
    }

    // MARK: Traffic from the supervisor

    /// Sends a request, waiting for the plugin to come up if it is restarting.
    func request(_ method: String, params: JSONValue, timeout: Duration) async throws -> JSONValue {
        switch state {
        case .failed, .notConfigured, .stopped, .stopping:
            throw RemoteError(code: .unavailable, message: "plugin \(name) is \(state.rawValue)")
        default: break
        }
        nextRequest += 1
        let id = "s\(nextRequest)"
        return try await withDeadline(timeout, onTimeout: { [weak self] in await self?.expire(id, after: timeout) }) {
            try await withCheckedThrowingContinuation { cont in
                var p = PendingRequest(method: method, params: params, continuation: cont)
                if state == .running {
                    p.sentToGeneration = generation
                    send(.request(id: id, method: method, params: params, deadlineMs: timeout.inMilliseconds))
                }
                pending[id] = p
            }
        }
    }

    private func expire(_ id: String, after timeout: Duration) {
        guard let p = pending.removeValue(forKey: id) else { return }
        p.continuation.resume(throwing: RemoteError.timeout("plugin \(name) did not answer \(p.method) within \(timeout)"))
    }

    /// Queues a message that must not be lost. Returns its id.
    @discardableResult
    func deliver(_ method: String, params: JSONValue) throws -> String {
        let id = UUID().uuidString.lowercased()
        try outbox.add(.init(id: id, method: method, params: params))
        if state == .running { send(.deliver(id: id, method: method, params: params)) }
        return id
    }

    /// Droppable traffic: sent only if the plugin is up.
    func notify(_ method: String, params: JSONValue) {
        if state == .running { send(.notify(method: method, params: params)) }
    }

    var roles: [String] { hello?.roles ?? [] }

    private func failAllPending(_ error: RemoteError) {
        let all = pending
        pending.removeAll()
        for (_, p) in all { p.continuation.resume(throwing: error) }
    }

    // MARK: Control

    /// `pi-relayd plugins restart`: re-arms a failed plugin or restarts a running one.
    func restart() {
        policy.rearm()
        switch state {
        case .failed, .notConfigured:
            state = .starting
            reason = nil
            rearm?.yield()
        case .running, .starting:
            restartRequested = true
            stopInstance()
        default: break
        }
    }

    /// The executable was replaced: a failed plugin gets another chance.
    func executableChanged(_ found: PluginDiscovery.Found) {
        path = found.path
        guard found.fingerprint != fingerprint else { return }
        fingerprint = found.fingerprint
        if state == .failed || state == .notConfigured { restart() }
    }

    /// Stops for good: shutdown message, close stdin, wait, TERM, wait, KILL.
    func stop() {
        stopRequested = true
        rearm?.finish()
        if pid == nil { state = .stopped } else { state = .stopping; stopInstance() }
    }

    private func stopInstance() {
        let gen = generation
        send(.shutdown(graceMs: options.shutdownGrace.inMilliseconds))
        input?.finish()
        let grace = options.shutdownGrace
        // Unstructured on purpose: escalation must run while the supervision loop waits for the exit.
        Task { [weak self] in
            try? await Task.sleep(for: grace)
            await self?.signalIfStill(gen, SIGTERM)
            try? await Task.sleep(for: .seconds(2))
            await self?.signalIfStill(gen, SIGKILL)
        }
    }

    private func signalIfStill(_ gen: Int, _ sig: Int32) {
        guard gen == generation, let pid else { return }
        logger.warning("plugin \(name): still running; sending \(ChildExit.signalName(sig)) to its process group")
        ChildProcess.signalGroup(pid, sig)
    }

    func status() -> JSONValue {
        var o: JSONValue = [
            "name": .string(name), "path": .string(path), "state": .string(state.rawValue),
            "restarts": JSONValue(restarts), "outbox": JSONValue(outbox.entries.count),
            "pendingRequests": JSONValue(pending.count),
        ]
        if let reason { o["reason"] = .string(Redactor.redact(reason)) }
        if let pid { o["pid"] = JSONValue(Int(pid)) }
        if let hello {
            o["version"] = .string(hello.version)
            o["roles"] = .array(hello.roles.map { .string($0) })
        }
        if state == .failed || state == .notConfigured {
            o["lastStderr"] = .array(stderrTail.suffix(10).map { .string(Redactor.redact($0)) })
        }
        if let e = outbox.lastError { o["outboxError"] = .string(e) }
        if let e = stderrLog.failure { o["logError"] = .string(e) }
        return o
    }
}
