import FoundationEssentials
import Logging
import PiRelaySDK
import PostgresNIO

/// pi-relay-federation: joins this machine's daemon with others through a shared PostgreSQL
/// database. It alone links postgres-nio; the supervisor hears from it over the plugin protocol
/// (`federation.machines`), so another engine could take its place.
public struct FederationRelay: Plugin {
    public static let manifest = PluginManifest(
        name: "federation", version: "0.1.0", roles: ["federation"],
        summary: "joins machines through a shared PostgreSQL database: every machine's sessions in every chat",
        config: FederationConfig.schema)

    let client: PostgresClient
    let roster: MachineRoster
    let address: String

    public init(context: PluginContext) async throws {
        let config = try FederationConfig.load(context.config, environment: ProcessInfo.processInfo.environment)
        // The client logs each failed connection at info: a database that is away would fill the
        // log every second. The roster says once that it is unreachable, and when it is back.
        var background = context.logger
        background.logLevel = .warning
        client = PostgresClient(configuration: try config.address.configuration(), backgroundLogger: background)
        let store = FederationStore(client: client, logger: context.logger)
        roster = MachineRoster(
            store: store, connection: context.connection, contact: SupervisorContact(), instance: UUID().uuidString,
            version: Self.manifest.version, logger: context.logger)
        address = config.address.description
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            group.addTask { await roster.run() }
        }
    }

    public func handle(_ request: PluginRequest) async throws -> JSONValue {
        switch request.name {
        case .status:
            let heard = roster.contact.lastHeard.map { Int((ContinuousClock.now - $0).inSeconds) }
            return ["database": .string(address), "supervisorHeardSecondsAgo": heard.map { JSONValue($0) } ?? .null]
        default:
            throw RemoteError.methodNotFound(request.method)
        }
    }
}
