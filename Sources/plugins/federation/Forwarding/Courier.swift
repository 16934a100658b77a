import Logging
import PiRelaySDK

/// What other machines send this one: requests for its sessions, handed to pi-relayd
/// (`federation.received`) with the answer written back, and posts for the chats it owns, handed
/// to pi-relayd (`federation.deliver`) in order and removed once queued there. It wakes on the
/// database's NOTIFY for this machine, and every second besides.
///
/// Requests are handled side by side, one chat's in the order they came: a slow one (a
/// compaction takes a model call) must not keep another chat's prompt untaken until its sender
/// withdraws it. One still waiting behind its chat's slow one at the take limit is answered "not
/// run" then (`RequestTurn`), while its sender still waits, and one whose turn comes while
/// pi-relayd here has stopped answering is answered so too: neither runs later.
struct Courier: Sendable {
    static let lookEvery: Duration = .seconds(1)
    static let supervisorSilence: Duration = .seconds(5)
    /// How long pi-relayd here may take with a request. Longer than its sender waits for the
    /// answer (`Outgoing`): a slow request is then "may have acted" there, not refused.
    static let supervisorWait: Duration = .seconds(60)

    let store: FederationStore
    let client: DatabaseClient
    let connection: PluginConnection
    let joined: JoinedMachine
    /// Requests are taken only while pi-relayd answers: one taken for a frozen daemon would wait
    /// in its pipe and run whenever it woke.
    let contact: SupervisorContact
    /// Which shared messengers this machine holds: it reads their queues too.
    let ingress: IngressStates
    let shared: [String]
    let logger: Logger
    /// One chat's requests one after another; different chats' side by side.
    let lanes = Lanes()

    func run() async {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    try? await Task.sleep(for: Self.lookEvery)
                }
            }
            group.addTask { await listen(wake) }
            group.addTask {
                var failing = false
                for await _ in wakes {
                    guard let machine = joined.current else { continue }
                    do {
                        try await takeRequests(for: machine)
                        try await passDeliveries(for: machine)
                        for messenger in shared where ingress.epoch(of: messenger) != nil {
                            try await passDeliveries(for: RemoteChannel.sharedMessenger(messenger))
                        }
                        failing = false
                    } catch {
                        if !failing { logger.warning("\(error)") }
                        failing = true
                    }
                }
            }
        }
    }

    /// Holds a connection that listens for this machine's wake-ups, again after it drops.
    private func listen(_ wake: AsyncStream<Void>.Continuation) async {
        while !Task.isCancelled {
            guard let machine = joined.current else {
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            do {
                try await client.listen(on: FederationStore.wakeChannel(machine)) { wake.yield() }
            } catch {
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func takeRequests(for machine: String) async throws(FederationError) {
        while let heard = contact.lastHeard, ContinuousClock.now - heard < Self.supervisorSilence,
            let (id, body) = try await store.takeRequest(for: machine, freshWithin: Outgoing.takeWithin - .seconds(1))
        {
            let request = Result { try ForwardedRequest(json: try JSONValue.parse(bytes: Array(body.utf8))) }
            let turn = RequestTurn()
            let limit = ContinuousClock.now + Outgoing.takeWithin - .seconds(1)
            await lanes.enqueue((try? request.get()).map(Self.lane) ?? "") { await handle(request, id: id, turn: turn) }
            // Unstructured on purpose: the limit runs beside the lane, which an earlier request of
            // the chat may hold for minutes; its sender must hear "not run" while it still waits.
            Task {
                try? await Task.sleep(until: limit)
                if turn.expire() { await answer(id, result: nil, failure: "not run: an earlier request of the same chat was still running there") }
            }
        }
    }

    /// The chat a request comes from, as its messenger's own lanes name it (a thread is a chat of
    /// its own). A shared messenger's chat is the same whichever machine holds its bot.
    static func lane(_ request: ForwardedRequest) -> String {
        let chat = request.params["chat"]
        let place = [chat?["channel"]?.stringValue, chat?["thread"]?.stringValue].compactMap { $0 }.joined(separator: "/")
        return RemoteChannel.isShared(messenger: request.messenger)
            ? "\(request.messenger) \(place)" : "\(request.machine) \(request.messenger) \(place)"
    }

    /// Hands a taken request to pi-relayd and writes its answer (or why there is none) back.
    private func handle(_ request: Result<ForwardedRequest, any Error>, id: Int64, turn: RequestTurn) async {
        // Answered "not run" at the take limit already.
        guard turn.start() else { return }
        var result: String?
        var failure: String?
        do {
            guard let heard = contact.lastHeard, ContinuousClock.now - heard < Self.supervisorSilence else {
                throw RemoteError(code: .unavailable, message: "not run: pi-relayd there stopped answering")
            }
            result = try await connection.request(.federationReceived, try request.get(), timeout: Self.supervisorWait).serialized()
        } catch let error as RemoteError {
            failure = error.message
        } catch {
            failure = "\(error)"
        }
        await answer(id, result: result, failure: failure)
    }

    private func answer(_ id: Int64, result: String?, failure: String?) async {
        do { try await store.answer(request: id, result: result, error: failure) } catch {
            logger.warning("could not write the answer to request \(id): \(error)")
        }
    }

    private func passDeliveries(for machine: String) async throws(FederationError) {
        for (id, body) in try await store.deliveries(for: machine) {
            do {
                let delivery = try ForwardedDelivery(json: try JSONValue.parse(bytes: Array(body.utf8)))
                _ = try await connection.request(.federationDeliver, delivery, timeout: .seconds(10))
            } catch let error as RemoteError where [.notFound, .methodNotFound, .invalidParams].contains(error.code) {
                // It can never be delivered here (its messenger is gone): not worth holding the rest.
                logger.error("dropped a delivery pi-relayd cannot take: \(error.message)")
            } catch {
                // pi-relayd is busy or restarting: the rest wait, in order, for the next look.
                logger.warning("pi-relayd did not take a delivery (\(error)); trying again")
                return
            }
            try await store.remove(delivery: id)
        }
    }
}
