import FederationPlugin
import Logging
import PostgresSupport

/// A running PostgreSQL and a store on it, for one test.
struct StoreHarness {
    let server: PostgresServer
    let store: FederationStore

    /// `body` with a fresh database whose schema is migrated; everything is stopped after.
    static func with(migrated: Bool = true, _ body: (StoreHarness) async throws -> Void) async throws {
        let server = try await PostgresServer.start()
        var logger = Logger(label: "federation-test")
        logger.logLevel = .warning
        do {
            let address = try DatabaseAddress(url: server.url)
            let client = DatabaseClient(address: address)
            let harness = StoreHarness(server: server, store: FederationStore(client: client, logger: logger))
            // The schema is the setting, not what is tested: it may take longer than the store's
            // own 5 s on a machine busy starting the other tests' servers (under ThreadSanitizer,
            // thirteen of them at once timed out).
            if migrated { try await FederationStore(client: client, logger: logger, answerWithin: .seconds(60)).migrate() }
            try await body(harness)
            await client.close()
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }
}
