import Logging
import PostgresSupport
import Testing

@testable import FederationPlugin

/// The database over the network with `sslmode=verify-full` (the default): the server's
/// certificate is taken when the named CA signed it for the host the URL names, and refused
/// from any other CA, on a real PostgreSQL with certificates made at test time.
@Suite(.timeLimit(.minutes(3))) struct DatabaseTLSTests {
    @Test func verifyFullTakesTheServersCAAndRefusesAnother() async throws {
        let (server, tls) = try await PostgresServer.startWithTLS()
        do {
            let trusted = try DatabaseAddress(url: "postgres://relay@localhost:\(tls.port)/postgres?sslrootcert=\(tls.authority)")
            #expect(trusted.tls == .verifyFull)
            #expect(try await Self.migrates(trusted) == nil)
            let refused = try await Self.migrates(
                try DatabaseAddress(url: "postgres://relay@localhost:\(tls.port)/postgres?sslrootcert=\(tls.stranger)"))
            #expect(refused?.description.contains("federation database") == true, "\(String(describing: refused))")
            // Why, as the owner reads it: the certificate, not a bare timeout.
            let stranger = try DatabaseAddress(url: "postgres://relay@localhost:\(tls.port)/postgres?sslrootcert=\(tls.stranger)")
            let why = await DatabaseProbe(address: stranger).reason()
            #expect(why?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(why ?? "nil")")
            #expect(await DatabaseProbe(address: trusted).reason() == nil)
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    /// libpq's `sslmode=require` with an `sslrootcert` checks the certificate against that CA,
    /// as `verify-ca` does (PostgreSQL's "SSL Support", "Protection Provided in Different
    /// Modes"): an owner who named a CA is not left open to whoever can answer in its place.
    /// Without one, `require` takes any certificate.
    @Test func requireWithARootCertificateChecksTheCA() async throws {
        let (server, tls) = try await PostgresServer.startWithTLS()
        do {
            let base = "postgres://relay@localhost:\(tls.port)/postgres?sslmode=require"
            #expect(try await Self.migrates(try DatabaseAddress(url: base)) == nil)
            #expect(try await Self.migrates(try DatabaseAddress(url: base + "&sslrootcert=\(tls.authority)")) == nil)
            let refused = try await Self.migrates(try DatabaseAddress(url: base + "&sslrootcert=\(tls.stranger)"))
            #expect(refused != nil, "a certificate from another CA than sslrootcert's was taken")
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    /// nil when the schema could be migrated over `address`, else the error.
    static func migrates(_ address: DatabaseAddress) async throws -> FederationError? {
        var logger = Logger(label: "federation-tls-test")
        logger.logLevel = .warning
        let client = DatabaseClient(address: address)
        var failure: FederationError?
        do throws(FederationError) {
            try await FederationStore(client: client, logger: logger, answerWithin: .seconds(5)).migrate()
        } catch {
            failure = error
        }
        await client.close()
        return failure
    }
}
