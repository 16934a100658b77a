import FoundationEssentials
import Logging
import PiRelaySDK
import PostgresNIO

/// pi-relay-federation: joins this machine's daemon with others through a shared PostgreSQL
/// database: the machines and their sessions (`MachineRoster`), chat requests for another
/// machine's sessions and the posts that come back (`Outgoing`, `Courier`). It alone links
/// postgres-nio; the supervisor talks to it over the plugin protocol (`federation.*`), so
/// another engine could take its place.
public struct FederationRelay: Plugin {
    public static let manifest = PluginManifest(
        name: "federation", version: "0.1.0", roles: ["federation"],
        summary: "joins machines through a shared PostgreSQL database: every machine's sessions driven from every chat",
        config: FederationConfig.schema)

    let client: PostgresClient
    let roster: MachineRoster
    let courier: Courier
    let outgoing: Outgoing
    let address: String

    public init(context: PluginContext) async throws {
        let config = try FederationConfig.load(context.config, environment: ProcessInfo.processInfo.environment)
        // The client logs each failed connection at info: a database that is away would fill the
        // log every second. The roster says once that it is unreachable, and when it is back.
        var background = context.logger
        background.logLevel = .warning
        client = PostgresClient(configuration: try config.address.configuration(), backgroundLogger: background)
        let store = FederationStore(client: client, logger: context.logger)
        let joined = JoinedMachine()
        roster = MachineRoster(
            store: store, connection: context.connection, contact: SupervisorContact(), joined: joined, instance: UUID().uuidString,
            version: Self.manifest.version, probe: DatabaseProbe(address: config.address, logger: background), logger: context.logger)
        courier = Courier(store: store, client: client, connection: context.connection, joined: joined, logger: context.logger)
        outgoing = Outgoing(store: store, joined: joined, logger: context.logger)
        address = config.address.description
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            group.addTask { await roster.run() }
            group.addTask { await courier.run() }
        }
    }

    public func handle(_ request: PluginRequest) async throws -> JSONValue {
        switch request.name {
        case .status:
            let heard = roster.contact.lastHeard.map { Int((ContinuousClock.now - $0).inSeconds) }
            return ["database": .string(address), "supervisorHeardSecondsAgo": heard.map { JSONValue($0) } ?? .null]
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
