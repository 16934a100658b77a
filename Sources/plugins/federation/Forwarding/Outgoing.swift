import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// What this machine sends to others: a chat request for a session another machine runs
/// (`federation.forward`), and the posts and live views its own sessions make for chats other
/// machines own (deliveries whose target is a `RemoteChannel`).
struct Outgoing: Sendable {
    /// How long the other machine has to take a request before it is withdrawn (and so never
    /// runs), and then to answer it.
    static let takeWithin = FederationStore.takeWithin
    static let answerWithin: Duration = .seconds(6)

    let store: FederationStore
    let joined: JoinedMachine
    /// Where pi-relayd spools a post's files: copies made for the post alone.
    let spoolDir: String
    let logger: Logger

    /// Sends `request` to its machine and waits for the answer; an error when it did not come,
    /// saying whether the request may have run there. Once the request is sent, a database that
    /// stops answering does not end the wait: the request is withdrawn (then it never runs), or
    /// the error says it may have run.
    func forward(_ request: ForwardedRequest) async throws -> JSONValue {
        guard let me = joined.current else {
            throw RemoteError(code: .unavailable, message: "this machine has not joined the federation (is its database reachable?)")
        }
        var body = request
        body.machine = me
        let messenger = RemoteChannel.baseMessenger(request.messenger)
        // The id comes first: a write whose answer is lost (a timeout, a dropped connection) may
        // still have been committed, and may be taken and run; the id finds it either way.
        let reserved: ReservedRequest
        do { reserved = try await store.reserveRequest() } catch { throw RemoteError(code: .unavailable, message: error.description) }
        let id = reserved.id
        var unsent: FederationError?
        do {
            if let message = request.claim {
                let sent = try await store.send(
                    request: body.json.serialized(), to: request.machine, claiming: message, messenger: messenger, for: me, as: reserved)
                if sent == nil {
                    throw RemoteError(code: .claimedElsewhere, message: "another machine of the federation took message \(message)")
                }
            } else {
                try await store.send(request: body.json.serialized(), to: request.machine, as: reserved)
            }
        } catch let error as FederationError {
            logger.warning("sending a request to \(request.machine) failed (\(error)); it may have been written: looking for request \(id)")
            unsent = error
        }
        if let answer = await answer(to: id, within: Self.takeWithin) { return try answer.get() }
        // Never acted on: the message is free again for a retry (here or elsewhere).
        let withdrawal: Withdrawal
        do {
            if let message = request.claim {
                withdrawal = try await store.withdraw(request: id, releasing: message, messenger: messenger, machine: me)
            } else {
                withdrawal = try await store.withdraw(request: id)
            }
        } catch {
            throw RemoteError(
                code: .timeout,
                message:
                    "the database stopped answering after the request was \(unsent == nil ? "" : "maybe ")sent (\(error)); it may have acted on it")
        }
        switch withdrawal {
        case .withdrawn:
            throw RemoteError(code: .unavailable, message: "it did not take the request within \(Self.takeWithin), so nothing was done there")
        case .absent:
            throw RemoteError(
                code: .unavailable,
                message: "the request could not be sent (\(unsent?.description ?? "it is not in the database")), so nothing was done there")
        case .taken:
            if let answer = await answer(to: id, within: Self.answerWithin) { return try answer.get() }
            throw RemoteError(code: .timeout, message: "it took the request but sent no answer in time; it may have acted on it")
        }
    }

    /// The answer once it is there (the row is then removed), or nil after `limit`. A read the
    /// database does not answer is tried again until then: a blip is no reason to give up on a
    /// request that may be running.
    private func answer(to id: Int64, within limit: Duration) async -> Result<JSONValue, RemoteError>? {
        let deadline = ContinuousClock.now + limit
        var pause: Duration = .milliseconds(20)
        while ContinuousClock.now < deadline {
            let read: (taken: Bool, answer: String?, error: String?)?
            do {
                read = try await store.reply(to: id)
                pause = .milliseconds(20)
            } catch {
                // Each failed read opens a new connection: not 50 a second at a database that is
                // coming back.
                read = nil
                pause = min(pause * 4, .milliseconds(500))
            }
            if let reply = read, reply.answer != nil || reply.error != nil {
                try? await store.forget(request: id)
                if let error = reply.error { return .failure(RemoteError(code: .other("remote"), message: error)) }
                guard let answer = try? JSONValue.parse(bytes: Array((reply.answer ?? "null").utf8)) else {
                    return .failure(RemoteError(code: .internal, message: "the answer from \(id) does not read as JSON"))
                }
                return .success(answer)
            }
            do { try await Task.sleep(for: pause) } catch { return nil }
        }
        return nil
    }

    /// A posted file as another machine may know it: its name, size and type, not where it is.
    static func named(_ file: JSONValue) -> JSONValue {
        var named: JSONValue = [:]
        for key in ["filename", "size", "mimeType"] { named[key] = file[key] }
        return named
    }

    /// Carries a delivery or notification for a chat another machine owns into its queue. A
    /// delivery (`retrying`) waits for the database however long it is away: it is acknowledged
    /// only once stored, so pi-relayd keeps it in its outbox meanwhile.
    func carry(_ method: MethodName, id: String?, params: JSONValue, retrying: Bool) async throws {
        guard let channel = params["target"]?["channel"]?.stringValue, let remote = RemoteChannel(encoded: channel) else {
            throw RemoteError.invalidParams("\(method.rawValue) is for no other machine's chat")
        }
        var target = params["target"] ?? [:]
        target["channel"] = .string(remote.channel)
        var local = params
        local["target"] = target
        // A post's files are paths on this machine, which another machine must neither read nor
        // see: only their names cross (that machine's chat is told they stay here). As a
        // messenger does after its upload, the spool copies made for the post go once it is carried.
        let files = params["files"]?.arrayValue ?? []
        if !files.isEmpty { local["files"] = .array(files.map(Self.named)) }
        let body = ForwardedDelivery(messenger: remote.messenger, method: method, id: id, params: local).json.serialized()
        // A shared messenger's chat (`*/telegram/…`): its queue, read by the bot's holder.
        let shared = remote.machine == RemoteChannel.anyMachine
        let queue = shared ? RemoteChannel.sharedMessenger(remote.messenger) : remote.machine
        var warned = false
        while true {
            do {
                let wake = shared ? (try await store.holder(of: FederationRelay.lease(remote.messenger)) ?? queue) : queue
                try await store.post(delivery: body, to: queue, wake: wake)
                if warned { logger.notice("posts for \(remote.machine) flow again") }
                for path in files.compactMap({ $0["path"]?.stringValue }) where path.resolvesInside(spoolDir) { unlink(path) }
                return
            } catch {
                guard retrying else { throw RemoteError(code: .unavailable, message: error.description) }
                if !warned { logger.warning("a post for \(remote.machine) waits for the database: \(error)") }
                warned = true
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
