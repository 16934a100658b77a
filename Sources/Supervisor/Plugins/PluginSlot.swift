import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// One plugin under supervision: its instances, one `PluginLink` each, and everything in flight
/// (outbox, pending requests), which lives here and not in the plugin, so a crash loses nothing.
/// The decisions are pure state machines (`PluginLifecycle`, `Liveness`, `InstanceEnd`,
/// `PendingRequests`, `HelloCheck`); this actor does their I/O.
package actor PluginSlot {
    package let name: String
    package private(set) var path: String
    package private(set) var fingerprint: String
    /// The home, options, logs and router (`PluginSlotServices`).
    private let services: PluginSlotServices
    package nonisolated var home: Home { services.home }
    package nonisolated var options: PluginHostOptions { services.options }
    package nonisolated var logger: Logger { services.logger }
    package nonisolated var stderrLog: RotatingLog { services.stderrLog }
    package nonisolated var router: any PluginRouter { services.router }

    private var lifecycle: PluginLifecycle
    /// What the current instance has shown (`PluginInstance`).
    private var current = PluginInstance()
    package var hello: Hello? { current.hello }
    package var pid: Int32? { current.pid }
    package var stderrTail: [String] { current.stderrTail }
    package var startedAt: Date? { current.startedAt }
    private var outbox: Outbox
    /// What of the outbox the running instance was sent, and which delivery crashes it.
    private var flight = DeliveryFlight()
    private var pending = PendingRequests(idPrefix: "s")
    /// The running instance's link, from its hello until it exits.
    private var link: PluginLink?
    /// The running instance's link, from its start until it exits: what a signal goes through.
    private var running: PluginLink?
    /// Set for a plugin linked into this process (`InProcessPlugin`).
    private let linked: InProcessPlugin?
    private var generation = 0
    private var liveness: Liveness?
    /// Request deadlines are checked by one timer per slot, set for the earliest.
    private var sweep = DeadlineSweep()
    private var rearm: AsyncStream<Void>.Continuation?

    package var state: PluginState { lifecycle.state }
    /// Whether the first instance has had its hello checked against its section, or has ended
    /// without: until then the variables its schema declares secret are not known to be kept
    /// from pi (`PluginHost.firstTries`).
    package private(set) var firstTryOver = false
    package var reason: String? { lifecycle.reason }
    package var restarts: Int { lifecycle.restarts }

    package init(
        found: PluginDiscovery.Found, home: Home, options: PluginHostOptions, logger: Logger, router: any PluginRouter,
        linked: InProcessPlugin? = nil
    ) {
        self.linked = linked
        name = found.name
        path = found.path
        fingerprint = found.fingerprint
        services = PluginSlotServices(
            home: home, options: options, logger: logger,
            stderrLog: RotatingLog(path: home.logFile(found.name), maxBytes: options.logMaxBytes, keep: options.logKeep), router: router)
        lifecycle = PluginLifecycle(options: options.restart)
        outbox = Outbox(path: home.outboxDir + "/" + found.name + ".jsonl", limit: options.outboxLimit)
    }

    // MARK: Supervision loop

    /// Runs the plugin until it is stopped, restarting it as the lifecycle says.
    package func run() async {
        // The plugin's requests are handled in a group of the slot, not of one instance: a
        // handler may wait minutes for pi (a `/compact`), and a crashed instance must not wait
        // for it before the plugin is started again. A reply for an instance that is gone is
        // dropped; the plugin asks again (its journal) and the daemon knows the message.
        await withDiscardingTaskGroup { requests in
            await supervise(requests: &requests)
        }
        lifecycle.stopped()
        failAllPending(RemoteError(code: .unavailable, message: "plugin \(name) stopped"))
    }

    private func supervise(requests: inout DiscardingTaskGroup) async {
        loop: while !lifecycle.stopRequested && !Task.isCancelled {
            if lifecycle.isParked {
                let (wake, continuation) = AsyncStream<Void>.makeStream()
                rearm = continuation
                for await _ in wake { break }
                rearm = nil
                continue
            }
            // On the pipe thread, where the plugin's lines are read: a reply then reaches the
            // request waiting for it without waking a pool thread (issue 12 k).
            let end = await withTaskExecutorPreference(PipePoller.shared) { await runInstance(requests: &requests) }
            switch lifecycle.instanceEnded(end.exit, why: end.reason, name: name, at: .now, random: Double.random(in: 0..<1)) {
            case .respawn:
                continue
            case .restart(let delay):
                if delay > .zero {
                    logger.info("plugin \(name): restarting in \(delay.inMilliseconds) ms")
                    await backOff(delay)
                } else {
                    logger.info("plugin \(name): restarting at once")
                }
            case .park(let error):
                if lifecycle.state == .failed {
                    logger.error("plugin \(name): failed: \(reason ?? error.message). Re-arm with: pi-relayd plugins restart \(name)")
                } else {
                    logger.warning("plugin \(name): not configured: \(reason ?? "exit status 78"); not restarting")
                }
                failAllPending(error)
            case .stop:
                break loop
            }
        }
    }

    /// Waits out a restart's backoff (up to `maxBackoff`); a stop ends the wait at once, or a
    /// shutdown would wait for it.
    private func backOff(_ delay: Duration) async {
        let (wake, continuation) = AsyncStream<Void>.makeStream()
        rearm = continuation
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: delay) }
            group.addTask { for await _ in wake { break } }
            await group.next()
            group.cancelAll()
        }
        rearm = nil
    }

    private enum SlotEvent: Sendable {
        case link(PluginLink.Event)
        case handshakeDeadline
        case tick
        case response(instance: Int, WireMessage)
    }

    /// One instance, from spawn to exit.
    private func runInstance(requests: inout DiscardingTaskGroup) async -> InstanceEnd {
        generation += 1
        let instance = generation
        lifecycle.spawning()
        current.spawning()
        let link =
            linked.map { PluginLink(linking: $0, workingDirectory: home.pluginStateDir(name), maxLineBytes: options.maxLineBytes) }
            ?? PluginLink(path: path, workingDirectory: home.pluginStateDir(name), home: home.root, maxLineBytes: options.maxLineBytes)
        try? FileManager.default.createDirectory(
            atPath: link.spec.workingDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var seen = InstanceEnd.Seen(exit: .spawnFailed("no exit seen"))
        let (events, sink) = AsyncStream<SlotEvent>.makeStream()

        await withTaskGroup(of: Void.self) { group in
            group.addTask { await link.run { sink.yield(.link($0)) } }
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
                case .link(.started(let childPID)):
                    current.pid = childPID
                    current.startedAt = Date()
                    running = link
                    logger.info("plugin \(name): spawned \(path) pid \(childPID.map { String($0) } ?? "none (linked in)")")
                case .link(.stderr(let line)):
                    stderrLog.append(Redactor.redact(line))
                    current.heard(stderr: line)
                case .link(.oversized(let bytes)):
                    logger.warning("plugin \(name): skipped a \(bytes)-byte line from stdout (over the \(options.maxLineBytes)-byte cap)")
                case .link(.unterminated(let bytes)):
                    logger.warning("plugin \(name): stdout ended with an unterminated \(bytes)-byte line; not parsed")
                case .link(.exited(let exit)):
                    seen.exit = exit
                    // Nothing more goes to a dead pipe while the instance's tasks wind down: a
                    // delivery or request made meanwhile waits for the next instance, and is not
                    // counted in flight on this one.
                    self.link = nil
                    break loop
                case .link(let line) where !seen.handshaken:
                    // Only a first line gets here: after a rejected or incompatible hello the
                    // instance is on its way out and the rest is ignored.
                    guard !seen.incompatible, current.killReason == nil else { continue }
                    await handshake(line, link: link, seen: &seen)
                case .link(.message(let message)):
                    receive(message, instance: instance, group: &requests, sink: sink)
                case .link(.malformed(let preview, let error)):
                    logger.warning("plugin \(name): skipped a malformed line (\(error)): \(preview)")
                case .handshakeDeadline:
                    if !seen.handshaken && !seen.incompatible && current.killReason == nil {
                        kill("sent no hello within \(options.handshakeTimeout.components.seconds) s")
                    }
                case .tick:
                    guard seen.handshaken, var check = liveness else { continue }
                    send(flight.tick(waiting: outbox.entries, id: \.id, at: .now), on: link)
                    let verdict = check.tick(
                        at: .now, stdinStalledFor: link.input.overFor, queuedBytes: link.input.pending,
                        stdinDraining: link.input.draining(within: check.pingTimeout))
                    liveness = check
                    switch verdict {
                    case .fine: break
                    case .ping(let id): link.send(.ping(id: id))
                    case .hung(let why): hang(why)
                    }
                case .response(let answered, let message):
                    if answered == instance { link.send(message) }
                }
            }
            group.cancelAll()
        }
        link.close()
        self.link = nil
        liveness = nil
        firstTryOver = true
        let endedPID = pid
        current.pid = nil
        running = nil
        seen.killReason = current.killReason
        seen.requested = lifecycle.endWasRequested
        seen.stderrTail = stderrTail
        let end = InstanceEnd.of(seen)
        let requestsInFlight = pending.anySent(to: instance)
        let ended = pending.instanceEnded(instance, crashed: end.crashed)
        for poisoned in ended.poison {
            logger.error("plugin \(name): request \(poisoned.method) was in flight during 2 crashes; failing it as poison")
            poisoned.continuation.resume(
                throwing: RemoteError(code: .poison, message: "\(poisoned.method) crashed plugin \(name) twice; not retried"))
        }
        for unsure in ended.unsure {
            logger.warning("plugin \(name) ended with \(unsure.method) in flight; it may have acted, so it is not sent again")
            unsure.continuation.resume(
                throwing: RemoteError(
                    code: .unavailable, message: "plugin \(name) ended while it carried this request, which may have run; it was not sent again"))
        }
        if let poison = flight.instanceEnded(crashed: end.crashed, otherWork: requestsInFlight) { setAside(poison) }
        log(end, seen, pid: endedPID)
        return end
    }

    private func log(_ end: InstanceEnd, _ seen: InstanceEnd.Seen, pid endedPID: Int32?) {
        let which = "plugin \(name) (\(endedPID.map { "pid \($0)" } ?? "linked in"))"
        switch end.exit {
        case .incompatible: logger.error("plugin \(name): \(reason ?? "incompatible protocol")")
        case .notConfigured: logger.warning("\(which) exited with status 78 (not configured): \(end.reason ?? "")")
        case .requested: logger.info("\(which) \(seen.exit)")
        case .crash:
            if case .spawnFailed(let why) = seen.exit {
                logger.error("plugin \(name): \(why)")
            } else {
                logger.error("\(which) \(end.reason ?? "\(seen.exit)")")
            }
        }
    }

    /// Judges the first line; on a good hello, sends the welcome and what waited for it.
    private func handshake(_ line: PluginLink.Event, link: PluginLink, seen: inout InstanceEnd.Seen) async {
        switch HelloCheck(first: line) {
        case .accepted(let said):
            seen.handshaken = true
            current.hello = said
            // Writable now, but `running` (so new traffic flows) only once the welcome is out.
            self.link = link
            lifecycle.helloAccepted(at: .now)
            liveness = Liveness(now: .now, pingTimeout: options.pingTimeout, stalledInputLimit: options.stalledInputLimit)
            logger.info("plugin \(name): hello: \(said.name) \(said.version), protocol \(said.protocol), roles \(said.roles)")
            do {
                let welcome = try await router.welcome(plugin: name, hello: said)
                firstTryOver = true
                sendWelcome(welcome, link: link)
            } catch {
                firstTryOver = true
                // The section fails the plugin's own schema: restarting cannot fix it, so the
                // plugin is parked as not configured, the error (file:line:col) its reason.
                seen.configRejected = error.description
                logger.error("plugin \(name): \(error)")
                self.link = nil
                liveness = nil
                link.send(.goodbye(reason: "config: \(error)"))
                link.close()
                return
            }
            await router.pluginReady(plugin: name, hello: said)
        case .incompatible(let said, let goodbye):
            seen.incompatible = true
            lifecycle.incompatible("speaks protocol \(said.protocol), this pi-relayd speaks \(WireMessage.protocolVersion)")
            link.send(.goodbye(reason: goodbye))
            link.close()
        case .rejected(let why):
            kill(why)
        }
    }

    /// Sends the welcome, then everything that waited for this instance.
    private func sendWelcome(_ welcome: Welcome, link: PluginLink) {
        guard self.link != nil, state == .handshaking else { return }
        link.send(.welcome(welcome))
        if flight.oneAtATime {
            logger.warning("plugin \(name): a delivery was in flight during 2 crashes; sending deliveries one at a time to find it")
        }
        send(flight.welcomed(outbox.entries, id: \.id, at: .now), on: link)
        for (id, entry) in pending.unsent(to: generation) {
            link.send(.request(id: id, method: entry.method, params: entry.params, deadlineMs: nil))
        }
        lifecycle.welcomed()
    }

    private func receive(_ message: WireMessage, instance: Int, group: inout DiscardingTaskGroup, sink: AsyncStream<SlotEvent>.Continuation) {
        switch message {
        case .response(let id, let result):
            pending.remove(id)?.continuation.resume(with: result.mapError { $0 })
        case .ack(let id):
            if outbox.ack(id) {
                let next = flight.acked(id, waiting: outbox.entries, id: \.id, at: .now)
                if let link { send(next, on: link) }
            }
        case .pong:
            liveness?.pong(at: .now)
        case .request(let id, let method, let params, _):
            let router = router
            let name = name
            group.addTask {
                let result: Result<JSONValue, RemoteError>
                do {
                    result = .success(try await router.handle(plugin: name, method: method, params: params))
                } catch let error as RemoteError {
                    result = .failure(error)
                } catch {
                    result = .failure(RemoteError(code: .internal, message: "\(error)"))
                }
                sink.yield(.response(instance: instance, .response(id: id, result: result)))
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

    private func kill(_ why: String) {
        current.killReason = why
        logger.error("plugin \(name): \(why)")
        running?.signal(SIGKILL, pid: pid)
    }

    private func hang(_ why: String) {
        current.killReason = "hung: \(why); killed"
        logger.error("plugin \(name) \(why); killing its process group")
        running?.signal(SIGKILL, pid: pid)
    }

    // MARK: Traffic from the supervisor

    /// Sends a request, waiting for the plugin to come up if it is restarting.
    package func request(_ method: String, params: JSONValue, timeout: Duration) async throws -> JSONValue {
        switch state {
        case .failed, .notConfigured, .stopped, .stopping:
            throw RemoteError(code: .unavailable, message: "plugin \(name) is \(state.rawValue)")
        default: break
        }
        let id = pending.nextID()
        let deadline = ContinuousClock.now + timeout
        return try await withCheckedThrowingContinuation { continuation in
            var entry = PendingRequests.Entry(method: method, params: params, continuation: continuation, deadline: deadline, timeout: timeout)
            if state == .running, let link {
                entry.sentTo = generation
                link.send(.request(id: id, method: method, params: params, deadlineMs: timeout.inMilliseconds))
            }
            pending.add(id, entry)
            armSweep(for: deadline)
        }
    }

    private func armSweep(for deadline: ContinuousClock.Instant) {
        sweep.arm(for: deadline) { [weak self] in await self?.sweepDue() }
    }

    private func sweepDue() {
        sweep.fired()
        for entry in pending.expired(at: .now) {
            entry.continuation.resume(throwing: RemoteError.timeout("plugin \(name) did not answer \(entry.method) within \(entry.timeout)"))
        }
        if let next = pending.nextDeadline { armSweep(for: next) }
    }

    /// Queues a message that must not be lost. Returns its id: `id` when given (a delivery another
    /// machine made, whose repeat the messenger's ledger then drops), else a new one.
    @discardableResult
    package func deliver(_ method: String, params: JSONValue, id given: String? = nil) throws -> String {
        let id = given ?? UUID().uuidString.lowercased()
        try outbox.add(.init(id: id, method: method, params: params))
        if state == .running, let link, flight.mayPass(id, at: .now) { link.send(.deliver(id: id, method: method, params: params)) }
        return id
    }

    private func send(_ deliveries: [Outbox.Entry], on link: PluginLink) {
        for entry in deliveries { link.send(.deliver(id: entry.id, method: entry.method, params: entry.params)) }
    }

    /// The delivery alone in flight during its second crash: replayed, it would crash every
    /// instance until the plugin is marked failed, so it is kept aside and the rest go on.
    private func setAside(_ id: String) {
        let method = outbox.entries.first { $0.id == id }?.method ?? "?"
        flight.forget(id)
        let kept = outbox.setAside(id, why: "in flight during 2 crashes of plugin \(name), alone the last time")
        logger.error(
            "plugin \(name): delivery \(id) (\(method)) was in flight during 2 crashes, alone the last time; set aside as poison\(kept ? " in \(outbox.setAsidePath)" : ", and \(outbox.setAsideError ?? "could not be kept")")"
        )
    }

    /// Droppable traffic: sent only if the plugin is up.
    package func notify(_ method: String, params: JSONValue) {
        if state == .running { link?.send(.notify(method: method, params: params)) }
    }

    package var roles: [String] { hello?.roles ?? [] }

    private func failAllPending(_ error: RemoteError) {
        for entry in pending.removeAll() { entry.continuation.resume(throwing: error) }
    }

    // MARK: Control

    /// `pi-relayd plugins restart`: re-arms a failed plugin or restarts a running one.
    package func restart() {
        switch lifecycle.restart() {
        case .wake: rearm?.yield()
        case .stopInstance: stopInstance()
        case .nothing: break
        }
    }

    /// The executable was replaced: a failed plugin gets another chance.
    package func executableChanged(_ found: PluginDiscovery.Found) {
        path = found.path
        guard found.fingerprint != fingerprint else { return }
        fingerprint = found.fingerprint
        if lifecycle.isParked { restart() }
    }

    /// Stops for good: shutdown message, close stdin, wait, TERM, wait, KILL.
    package func stop() {
        rearm?.finish()
        if lifecycle.stop(instanceRunning: running != nil) { stopInstance() }
    }

    private func stopInstance() {
        let instance = generation
        link?.send(.shutdown(graceMs: options.shutdownGrace.inMilliseconds))
        link?.close()
        let grace = options.shutdownGrace
        // Unstructured on purpose: escalation must run while the supervision loop waits for the exit.
        Task { [weak self] in
            try? await Task.sleep(for: grace)
            await self?.signalIfStill(instance, SIGTERM)
            try? await Task.sleep(for: .seconds(2))
            await self?.signalIfStill(instance, SIGKILL)
        }
    }

    private func signalIfStill(_ instance: Int, _ signal: Int32) {
        guard instance == generation, let running else { return }
        logger.warning("plugin \(name): still running; sending \(ChildExit.signalName(signal)) to its process group")
        running.signal(signal, pid: pid)
    }

    package func status() -> JSONValue {
        var object: JSONValue = [
            "name": .string(name), "path": .string(path), "state": .string(state.rawValue),
            "restarts": JSONValue(restarts), "outbox": JSONValue(outbox.entries.count),
            "outboxOldestSeconds": .number((outbox.oldestAge() * 10).rounded() / 10),
            "pendingRequests": JSONValue(pending.count),
        ]
        if let reason { object["reason"] = .string(Redactor.redact(reason)) }
        if let pid { object["pid"] = JSONValue(Int(pid)) }
        if let hello {
            object["version"] = .string(hello.version)
            object["roles"] = .array(hello.roles.map { .string($0) })
        }
        if state == .failed || state == .notConfigured {
            object["lastStderr"] = .array(stderrTail.suffix(10).map { .string(Redactor.redact($0)) })
        }
        if let error = outbox.lastError { object["outboxError"] = .string(error) }
        if outbox.refused > 0, let since = outbox.refusedSince {
            let when = ISO8601.string(Date(timeIntervalSince1970: since))
            object["outboxRefused"] = .string(
                "\(outbox.refused) deliveries dropped since \(when): the outbox was full (plugins.outboxLimit \(outbox.limit)); the plugin did not acknowledge what it was sent"
            )
        }
        if outbox.setAside > 0, let since = outbox.setAsideSince {
            let when = ISO8601.string(Date(timeIntervalSince1970: since))
            object["outboxSetAside"] = .string(
                "\(outbox.setAside) deliveries set aside since \(when): each crashed the plugin twice; "
                    + (outbox.setAsideError.map { "the last \($0)" } ?? "kept in \(outbox.setAsidePath)"))
        }
        if let error = stderrLog.failure { object["logError"] = .string(error) }
        return object
    }
}
