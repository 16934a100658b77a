import FederationPlugin
import Testing

/// The database URL from `.env`: a socket or a host, TLS that checks the server by default over
/// the network, and a description that never shows the password.
@Suite struct DatabaseAddressTests {
    @Test func aSocketFolderIsASocketWithoutTLS() throws {
        let address = try DatabaseAddress(url: "postgres://relay@/relaydb?host=/run/postgresql")
        #expect(address.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(address.database == "relaydb" && address.user == "relay" && address.tls == .disable)
    }

    @Test func aHostGetsVerifiedTLSUnlessTheURLSaysOtherwise() throws {
        let plain = try DatabaseAddress(url: "postgresql://relay:s3cr%40t@nas.lan:6543/relay")
        #expect(plain.host == "nas.lan" && plain.port == 6543 && plain.tls == .verifyFull)
        let pinned = try DatabaseAddress(url: "postgres://relay@nas.lan/relay?sslmode=verify-full&sslrootcert=/etc/relay/ca.pem")
        #expect(pinned.rootCertificates == "/etc/relay/ca.pem")
        #expect(try DatabaseAddress(url: "postgres://relay@10.0.0.2/relay?sslmode=disable").tls == .disable)
    }

    @Test func aFallbackToPlainTextIsRefused() {
        for mode in ["prefer", "allow", "nonsense"] {
            #expect(throws: FederationError.self) { try DatabaseAddress(url: "postgres://relay@nas.lan/relay?sslmode=\(mode)") }
        }
    }

    @Test func badURLsSayWhatIsWrongWithoutRepeatingThem() {
        let cases = [
            ("mysql://relay:hunter2@nas/relay", "must start with postgres://"),
            ("postgres://nas.lan/relay", "names no user"),
            ("postgres://relay:hunter2@/relay", "names no host"),
        ]
        for (url, expected) in cases {
            do {
                _ = try DatabaseAddress(url: url)
                Issue.record("\(url) was taken")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
                #expect(!error.description.contains("hunter2"))
            }
        }
    }

    @Test func theDescriptionHidesThePassword() throws {
        let address = try DatabaseAddress(url: "postgres://relay:hunter2@nas.lan/relay")
        #expect(address.description == "postgres://relay:***@nas.lan:5432/relay (tls verify-full)")
    }
}
