import FoundationEssentials
import Logging
import PiRelaySDK

/// pi-relay-federation: joins this machine's daemon with others through a shared PostgreSQL
/// database: the machines and their sessions (`MachineRoster`), chat requests for another
/// machine's sessions and the posts that come back (`Outgoing`, `Courier`). It alone speaks
/// to PostgreSQL; the supervisor talks to it over the plugin protocol (`federation.*`), so
/// another engine could take its place.
public struct FederationRelay: Plugin {
    public static let manifest = PluginManifest(
        name: "federation", version: "0.1.0", roles: ["federation"],
        summary: "joins machines through a shared PostgreSQL database: every machine's sessions driven from every chat",
        config: FederationConfig.schema)

    let client: DatabaseClient
    let roster: MachineRoster
    let courier: Courier
    let outgoing: Outgoing
    /// Chats' picked machines until the database has them.
    let picks: PendingPicks
    let address: String
    let store: FederationStore
    let joined: JoinedMachine
    let config: FederationConfig
    let ingress = IngressStates()
    let connection: PluginConnection
    let logger: Logger

    public init(context: PluginContext) async throws {
        let config = try FederationConfig.load(context.config, environment: ProcessInfo.processInfo.environment)
        self.config = config
        connection = context.connection
        logger = context.logger
        client = DatabaseClient(address: config.address)
        let store = FederationStore(client: client, logger: context.logger)
        self.store = store
        let joined = JoinedMachine()
        self.joined = joined
        roster = MachineRoster(
            store: store, connection: context.connection, contact: context.contact, joined: joined,
            version: Self.manifest.version, probe: DatabaseProbe(address: config.address), logger: context.logger)
        courier = Courier(
            store: store, client: client, connection: context.connection, joined: joined, contact: context.contact, ingress: ingress,
            shared: config.ingress, logger: context.logger)
        outgoing = Outgoing(store: store, joined: joined, spoolDir: context.spoolDir, logger: context.logger)
        picks = PendingPicks(store: store, state: StateStore(directory: context.stateDir), logger: context.logger)
        address = config.address.description
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await roster.run() }
            group.addTask { await courier.run() }
            group.addTask { await picks.run() }
            for messenger in config.ingress { group.addTask { await keepIngress(messenger) } }
        }
    }

    /// The lease on `messenger`'s ingress, once this machine has joined: each start and stop is
    /// told to pi-relayd (`federation.ingress`), which tells the messenger.
    func keepIngress(_ messenger: String) async {
        var machine = joined.current
        while machine == nil {
            do { try await Task.sleep(for: .milliseconds(200)) } catch { return }
            machine = joined.current
        }
        let lease = Self.lease(messenger)
        let keeper = LeaseKeeper(
            store: store, lease: lease, messenger: messenger, machine: machine ?? "", preferred: config.preferred, times: LeaseTimes(),
            contact: roster.contact,
            answers: { [connection, contact = roster.contact] in
                guard let status = try? await connection.request(.relayStatus, NoPayload(), timeout: .seconds(3)) else { return false }
                contact.heard()
                // Held only where the messenger runs: a machine without the token (or whose
                // plugin failed) must leave the bot to one that can take its updates.
                return (status["plugins"]?.arrayValue ?? []).contains { $0["name"]?.stringValue == messenger && $0["state"] == "running" }
            }, joinedAs: { [joined] in joined.current }, logger: logger)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await keeper.run { change in
                    let told: IngressChange
                    switch change {
                    case .started(let epoch):
                        let cursor = try? await store.cursor(lease)
                        told = IngressChange(messenger: messenger, active: true, epoch: epoch, cursor: cursor ?? nil)
                    case .stopped(let reason):
                        told = IngressChange(messenger: messenger, active: false, reason: reason)
                    }
                    ingress.set(told)
                    await connection.notify(.federationIngress, told)
                }
            }
            // Said again every few seconds: a messenger that stops hearing it stands by
            // (`IngressGate.refreshWithin`), whatever happened to this plugin or a notification.
            group.addTask {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: Self.ingressRefresh) } catch { return }
                    if let state = ingress.state(of: messenger) { await connection.notify(.federationIngress, state) }
                }
            }
        }
    }

    /// How often the ingress state is said again.
    static let ingressRefresh: Duration = .seconds(5)

    static func lease(_ messenger: String) -> String { "ingress:" + messenger }

    public func handle(_ request: PluginRequest) async throws -> JSONValue {
        switch request.name {
        case .status:
            let heard = roster.contact.lastHeard.map { Int((ContinuousClock.now - $0).inSeconds) }
            return [
                "database": .string(address), "supervisorHeardSecondsAgo": heard.map { JSONValue($0) } ?? .null,
                "picksWaiting": JSONValue(await picks.count),
            ]
        case .federationCursor:
            let cursor = try IngressCursor(json: request.params)
            guard let epoch = ingress.epoch(of: cursor.messenger), let machine = joined.current else { return CursorAnswer(stored: false).json }
            do {
                let stored = try await store.advance(cursor: Self.lease(cursor.messenger), to: cursor.position, machine: machine, epoch: epoch)
                return CursorAnswer(stored: stored).json
            } catch {
                throw RemoteError(code: .unavailable, message: error.description)
            }
        case .federationPicks:
            let asked = try ChatPicks(json: request.params)
            do {
                // A pick still on its way to the database is newer than the database's.
                let stored = try await store.picks(messenger: asked.messenger)
                let all = stored.merging(await picks.waiting(for: asked.messenger)) { $1 }
                return ChatPicks(messenger: asked.messenger, picks: all).json
            } catch {
                throw RemoteError(code: .unavailable, message: error.description)
            }
        case .federationPick:
            // Acknowledged once it waits in the state folder (`PendingPicks`) for the database.
            let picked = try ChatPicks(json: request.params)
            // Not acknowledged while only memory holds it: a restart would lose it.
            guard await picks.add(picked, at: picked.madeAt.map { Date(timeIntervalSince1970: $0) } ?? Date()) else {
                throw StateStore.NotSaved(file: PendingPicks.file)
            }
            return [:]
        case .federationClaim:
            var claim = try MessageClaim(json: request.params)
            guard let me = joined.current else {
                throw RemoteError(code: .unavailable, message: "this machine has not joined the federation (is its database reachable?)")
            }
            do {
                if claim.release {
                    try await store.release(message: claim.messageID, messenger: claim.messenger, machine: me)
                } else {
                    claim.first = try await store.claim(message: claim.messageID, messenger: claim.messenger, machine: me)
                }
            } catch {
                throw RemoteError(code: .unavailable, message: error.description)
            }
            return claim.json
        case .federationForward:
            return try await outgoing.forward(try ForwardedRequest(json: request.params))
        case .chatPost, .chatQuestionClosed, .chatReact:
            try await outgoing.carry(request.name, id: request.id, params: request.params, retrying: true)
            return [:]
        case .chatThread:
            throw RemoteError(code: .other("unsupported"), message: "a chat on another machine gets no new threads from here")
        default:
            throw RemoteError.methodNotFound(request.method)
        }
    }

    /// Live views and typing for a chat another machine owns: carried if the database takes them
    /// now (a newer view follows anyway).
    public func handle(notification method: String, params: JSONValue) async {
        switch MethodName(rawValue: method) {
        case .chatLive, .chatTyping:
            do { try await outgoing.carry(MethodName(rawValue: method), id: nil, params: params, retrying: false) } catch {
                roster.logger.debug("\(method) not carried: \(error)")
            }
        default:
            break
        }
    }
}
