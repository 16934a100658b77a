import DiscordPayloads
import FoundationEssentials
import HTTPTypes
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import WSClient

extension Gateway {
    /// One WebSocket connection, from connect to close.
    func connectOnce(url: String) async -> GatewayEnding {
        connection += 1
        let id = connection
        let (outgoing, outgoingIn) = AsyncStream.makeStream(of: GatewayOutgoing.self, bufferingPolicy: .unbounded)
        outbox = outgoingIn
        tracker = nil
        sendLimiter = GatewaySendLimiter()
        phase = .connecting
        let address = Self.withQuery(url)
        // Gateway frames can be large (READY, GUILD_CREATE of a big guild); 16 KiB is the default.
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24, closeTimeout: .seconds(2))
        // The library logs frames at trace level, identify included: it gets no log output at all.
        let quiet = Logger(label: "discord-ws") { _ in SwiftLogNoOpLogHandler() }
        let handler: WebSocketDataHandler<WebSocketClient.Context> = { inbound, outbound, _ in
            await self.serve(inbound: inbound, outbound: outbound, outgoing: outgoing, connection: id)
        }
        var ending = GatewayEnding()
        trace(id, "connecting")
        defer { trace(id, "ended") }
        do {
            let frame: WebSocketCloseFrame?
            if let settings = proxySettings(for: address) {
                frame = try await WebSocketClient.connect(
                    url: address, configuration: configuration, proxySettings: settings,
                    logger: quiet, handler: handler)
            } else {
                frame = try await WebSocketClient.connect(url: address, configuration: configuration, logger: quiet, handler: handler)
            }
            if let frame {
                ending.code = Int(UInt16(webSocketErrorCode: frame.closeCode))
                ending.reason = frame.reason.map { token.masking($0) }
            }
        } catch {
            ending.failure = token.masking(String(describing: error))
        }
        if connection == id { outbox = nil }
        outgoingIn.finish()
        return ending
    }

    /// Runs inside the WebSocket client's handler: a reader, a writer and the heartbeat. The
    /// connection ends when the reader (Discord closed) or the writer (we sent a close) is done.
    nonisolated func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        outgoing: AsyncStream<GatewayOutgoing>, connection id: Int
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { self.trace(id, "writer done") }
                for await item in outgoing {
                    switch item {
                    case .text(let text):
                        do { try await outbound.write(.text(text)) } catch { return }
                    case .close(let code, let reason):
                        try? await outbound.close(.unknown(code), reason: reason)
                        return
                    }
                }
            }
            group.addTask {
                defer { self.trace(id, "reader done") }
                do {
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        guard case .text(let text) = message else { continue }
                        await self.receive(text, connection: id)
                    }
                } catch {
                    await self.noteReadFailure(error, connection: id)
                }
            }
            group.addTask {
                await self.heartbeat(connection: id)
                self.trace(id, "heartbeat done")
            }
            // The heartbeat never finishes on its own, so this is the reader or the writer.
            await group.next()
            group.cancelAll()
        }
        trace(id, "handler done")
    }

    nonisolated func trace(_ connection: Int, _ what: String) {
        logger.trace("gateway: connection \(connection): \(what)")
    }

    func noteReadFailure(_ error: any Error, connection id: Int) {
        guard id == connection, !(error is CancellationError) else { return }
        logger.debug("gateway: read failed: \(token.masking(String(describing: error)))")
    }

    /// Heartbeats for one connection until it is cancelled. Never returns early: a zombie is
    /// handled by queueing a close frame, which ends the connection through the writer.
    nonisolated func heartbeat(connection id: Int) async {
        var waited = Duration.zero
        var interval = await heartbeatInterval(connection: id)
        while interval == nil {
            if waited >= .seconds(20) {
                await leave(.resume, connection: id, why: "no Hello within 20 s")
                await Self.sleepUntilCancelled()
                return
            }
            try? await Task.sleep(for: .milliseconds(50))
            if Task.isCancelled { return }
            waited += .milliseconds(50)
            interval = await heartbeatInterval(connection: id)
        }
        guard let interval else { return }
        try? await Task.sleep(for: HeartbeatTracker.firstDelay(interval: interval, jitter: .random(in: 0..<1)))
        while !Task.isCancelled {
            guard await beat(connection: id) else {
                await Self.sleepUntilCancelled()
                return
            }
            try? await Task.sleep(for: interval)
        }
    }

    static func sleepUntilCancelled() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    func heartbeatInterval(connection id: Int) -> Duration? {
        guard id == connection else { return nil }
        return tracker?.interval
    }

    /// A scheduled heartbeat; false when the connection turned out to be a zombie.
    func beat(connection id: Int) -> Bool {
        guard id == connection, var tracker else { return false }
        switch tracker.beat(now: .now) {
        case .send:
            self.tracker = tracker
            send(.heartbeat, sequence.map { JSONValue($0) } ?? .null, heartbeat: true)
            return true
        case .zombie:
            self.tracker = tracker
            logger.warning("gateway: no heartbeat ACK since the last heartbeat; reconnecting (zombie connection)")
            leave(.resume, connection: id, why: "heartbeat ACK missing")
            return false
        }
    }

    /// Closes the current connection with a non-1000 code, which keeps the session resumable
    /// unless `action` says otherwise.
    func leave(_ action: GatewayCloseAction, connection id: Int, why: String) {
        guard id == connection, leaving == nil else { return }
        leaving = action
        leavingReason = why
        outbox?.yield(.close(code: 4000, reason: why))
    }

    func receive(_ text: String, connection id: Int) async {
        guard id == connection else { return }
        let payload: GatewayPayload
        do {
            payload = try GatewayPayload.decode(text)
        } catch {
            logger.warning("gateway: skipped an undecodable frame (\(text.utf8.count) bytes)")
            return
        }
        switch GatewayOpcode(rawValue: payload.op) {
        case .hello:
            let ms = payload.data["heartbeat_interval"]?.intValue ?? 41_250
            tracker = HeartbeatTracker(interval: .milliseconds(max(ms, 100)))
            await introduce(connection: id)
        case .heartbeatAck:
            tracker?.acked(now: .now)
            // A quiet session sends no dispatches; the ACKs keep "last seen alive" fresh, which
            // decides whether a restarted plugin still tries to resume.
            if let saved = resume, Date().timeIntervalSince1970 - saved.savedAt > 30 { await saveResume() }
        case .heartbeat:
            tracker?.requested(now: .now)
            send(.heartbeat, sequence.map { JSONValue($0) } ?? .null, heartbeat: true)
        case .reconnect:
            logger.info("gateway: Discord asked for a reconnect (op 7)")
            leave(.resume, connection: id, why: "reconnect requested")
        case .invalidSession:
            let resumable = payload.data.boolValue ?? false
            logger.info("gateway: session invalidated (op 9, resumable: \(resumable))")
            leave(resumable ? .resume : .reidentify, connection: id, why: "invalid session")
        case .dispatch:
            await dispatch(payload)
        default:
            break
        }
    }

    /// After Hello: RESUME when a session is known, else IDENTIFY (spaced ≥ 5.5 s apart, since
    /// Discord allows one identify per 5 s and answers a faster one with op 9).
    func introduce(connection id: Int) async {
        if let resume, let sequence {
            phase = .resuming
            logger.info("gateway: resuming session \(resume.sessionID.prefix(8))… from seq \(sequence)")
            send(.resume, ["token": .string(token.value), "session_id": .string(resume.sessionID), "seq": JSONValue(sequence)])
            return
        }
        phase = .identifying
        if let last = lastIdentify {
            let wait = last + .milliseconds(5500) - .now
            if wait > .zero { try? await Task.sleep(for: wait) }
            guard id == connection, leaving == nil else { return }
        }
        lastIdentify = .now
        var identify: JSONValue = [
            "token": .string(token.value), "intents": JSONValue(Intents.relay),
            "properties": ["os": "linux", "browser": "pi-relayd", "device": "pi-relayd"],
        ]
        if let presenceText {
            identify["presence"] = Self.presence(presenceText)
            presenceDue = false
        }
        logger.info("gateway: identifying (intents \(Intents.relay))")
        send(.identify, identify)
    }

    func dispatch(_ payload: GatewayPayload) async {
        dispatches += 1
        if let received = payload.sequence { sequence = received }
        guard let name = payload.eventName else { return }
        guard let event = GatewayEvent.decode(name: name, data: payload.data) else {
            logger.warning("gateway: \(name) without the fields the relay needs; skipped")
            return
        }
        switch event {
        case .ready(let info):
            let url = info.resumeURL.isEmpty ? (gatewayURL?.url ?? "") : info.resumeURL
            resume = ResumeState(
                sessionID: info.sessionID, resumeURL: url, sequence: sequence ?? 0,
                botUserID: info.botUserID, applicationID: info.applicationID,
                savedAt: Date().timeIntervalSince1970)
            phase = .ready
            sessionHealthy = true
            logger.info(
                "gateway: ready as \(info.botName) (\(info.botUserID)), session \(info.sessionID.prefix(8))…, \(info.guildIDs.count) guild(s)")
            sendPresenceIfDue()
        case .resumed:
            phase = .ready
            sessionHealthy = true
            logger.info("gateway: resumed at seq \(sequence ?? 0)")
            sendPresenceIfDue()
        default:
            break
        }
        await handler?(event)
        // An event the relay acts on moves the saved resume point at once. The others (its own
        // edits echoed back, typing) move it at most every `resumeSaveSeconds`: a resume from
        // an older point replays them, and the relay ignores them again.
        if case .other = event, let saved = resume, Date().timeIntervalSince1970 - saved.savedAt < Self.resumeSaveSeconds { return }
        await saveResume()
    }

    /// How stale the saved resume point may get while only events the relay ignores come.
    static let resumeSaveSeconds = 5.0

    /// Saves the session with the newest sequence number: asked for after the handler took the
    /// event, so a plugin killed in between gets it replayed (and the inbox drops a repeat).
    /// Written beside the reader (`ResumeWriter`): four messages at once waited for each other's
    /// writes here.
    func saveResume() async {
        guard var saved = resume else { return }
        saved.sequence = sequence ?? saved.sequence
        saved.savedAt = Date().timeIntervalSince1970
        resume = saved
        await resumeWriter.write(saved)
    }

    /// Queues a payload for the writer, within Discord's 120 per 60 s. A payload over the limit
    /// waits; only presence updates can get there, and the newest presence wins anyway.
    func send(_ op: GatewayOpcode, _ data: JSONValue, heartbeat: Bool = false) {
        guard let outbox else { return }
        if let retry = sendLimiter.admit(now: .now, heartbeat: heartbeat) {
            logger.warning("gateway: send limit reached; \(op) deferred")
            if op == .presenceUpdate {
                presenceDue = true
                schedulePresence(at: retry)
            }
            return
        }
        outbox.yield(.text(GatewayPayload.encode(op, data)))
    }

    /// Sends the newest presence, at most one every 5 s: the supervisor may change it often, and
    /// every payload counts against the gateway's send limit.
    func sendPresenceIfDue() {
        guard presenceDue, phase == .ready, let presenceText else { return }
        if let last = lastPresence, ContinuousClock.now - last < .seconds(5) {
            schedulePresence(at: last + .seconds(5))
            return
        }
        presenceDue = false
        lastPresence = .now
        send(.presenceUpdate, Self.presence(presenceText))
    }

    private func schedulePresence(at instant: ContinuousClock.Instant) {
        guard !presenceScheduled else { return }
        presenceScheduled = true
        // Unstructured on purpose: a deferred presence goes out later without holding up the caller.
        Task { [weak self] in
            try? await Task.sleep(until: instant, clock: .continuous)
            await self?.firePresence()
        }
    }

    private func firePresence() {
        presenceScheduled = false
        sendPresenceIfDue()
    }

    static func presence(_ text: String) -> JSONValue {
        let activities: JSONValue = text.isEmpty ? [] : [["name": .string(TextFit.clamp(text, to: 128)), "type": 3]]
        return ["since": .null, "activities": activities, "status": "online", "afk": false]
    }

    static func host(of url: String) -> String {
        var rest = url[...]
        if let separator = rest.firstRange(of: "://") { rest = rest[separator.upperBound...] }
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) { rest = rest[..<end] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") { return String(rest[rest.index(after: rest.startIndex)..<close]) }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return String(rest)
    }

    /// `<url>/?v=10&encoding=json`, without compression (see discord-api.md §2.1).
    static func withQuery(_ url: String) -> String {
        var base = url
        if let queryStart = base.firstIndex(of: "?") { base = String(base[..<queryStart]) }
        return base + (base.hasSuffix("/") ? "" : "/") + "?v=10&encoding=json"
    }

    func proxySettings(for address: String) -> WebSocketProxySettings? {
        guard let endpoint = proxy.endpoint, !proxy.bypasses(host: Self.host(of: address)) else { return nil }
        if endpoint.scheme.hasPrefix("socks") {
            return WebSocketProxySettings(host: endpoint.host, port: endpoint.port, type: .socks)
        }
        var headers = HTTPFields()
        if let (user, password) = proxy.credentials {
            headers[.proxyAuthorization] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        return WebSocketProxySettings(host: endpoint.host, port: endpoint.port, type: .http(connectHeaders: headers))
    }
}
