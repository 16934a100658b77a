import Foundation
import NIOCore
import PostgresSupport
import Testing

@testable import FederationPlugin

/// The federation's own PostgreSQL client against a real server: each way of signing in by
/// password, a wrong or a missing one refused with the server's reason and never the password,
/// parameters that stay parameters, and notifications.
@Suite(.timeLimit(.minutes(3))) struct DatabaseWireTests {
    static let encoded = "s3cret%20pass%2Cword%3D%C3%BC"

    @Test func eachPasswordMethodSignsIn() async throws {
        let (server, port) = try await PostgresServer.startWithPasswords()
        do {
            for role in ["scram", "md5user", "plain"] {
                let address = try DatabaseAddress(url: "postgres://\(role):\(Self.encoded)@127.0.0.1:\(port)/postgres?sslmode=disable")
                let connection = try await DatabaseConnection.connect(to: address)
                let rows = try await connection.query("SELECT current_user::text")
                #expect(try rows.first?.string(0) == role)
                await connection.close()
            }
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    @Test func aWrongOrMissingPasswordIsRefusedWithoutShowingIt() async throws {
        let (server, port) = try await PostgresServer.startWithPasswords()
        do {
            for role in ["scram", "md5user", "plain"] {
                let address = try DatabaseAddress(url: "postgres://\(role):not-it-at-all@127.0.0.1:\(port)/postgres?sslmode=disable")
                do {
                    _ = try await DatabaseConnection.connect(to: address)
                    Issue.record("\(role) signed in with a wrong password")
                } catch {
                    #expect(error == .fatal(message: "password authentication failed for user \"\(role)\"", sqlState: "28P01"), "\(role): \(error)")
                    #expect(!error.description.contains("not-it-at-all"))
                }
                let without = try DatabaseAddress(url: "postgres://\(role)@127.0.0.1:\(port)/postgres?sslmode=disable")
                do {
                    _ = try await DatabaseConnection.connect(to: without)
                    Issue.record("\(role) signed in without a password")
                } catch {
                    #expect(error == .authentication("the server wants a password and the database URL gives none"), "\(role): \(error)")
                }
            }
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    /// A server without TLS answers the SSLRequest with `N`: refused, never spoken to in clear.
    @Test func aServerWithoutTLSIsRefusedWhenTheURLAsksForIt() async throws {
        let (server, port) = try await PostgresServer.startWithPasswords()
        do {
            let address = try DatabaseAddress(url: "postgres://scram:\(Self.encoded)@127.0.0.1:\(port)/postgres?sslmode=require")
            do {
                _ = try await DatabaseConnection.connect(to: address)
                Issue.record("signed in without TLS")
            } catch {
                #expect(error == .connection("the database does not offer TLS, and the URL's sslmode requires it"), "\(error)")
            }
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    /// What the protocol does not allow is an error, not a guess.
    @Test func aMalformedMessageIsAProtocolError() throws {
        func read(_ type: Character, _ bytes: [UInt8]) throws(WireError) -> BackendMessage {
            var body = ByteBuffer(bytes: bytes)
            return try BackendMessage(type: type.asciiValue!, body: &body)
        }
        #expect(throws: WireError.protocolViolation("an unexpected message 'G'")) { _ = try read("G", []) }
        #expect(throws: WireError.protocolViolation("a short data row")) { _ = try read("D", [0, 1, 0, 0, 0, 9, 65]) }
        #expect(throws: WireError.protocolViolation("an MD5 request without its salt")) { _ = try read("R", [0, 0, 0, 5, 1]) }
        #expect(try read("D", [0, 2, 255, 255, 255, 255, 0, 0, 0, 1, 65]) == .dataRow([nil, [65]]))
    }

    /// RFC 7677 §3's exchange, byte for byte.
    @Test func scramFollowsTheRFCsExample() throws {
        var exchange = SCRAM(password: "pencil", nonce: "rOprNGfwEbeRWgbNEkqO", user: "user")
        #expect(String(decoding: exchange.first, as: UTF8.self) == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
        let final = try exchange.respond(
            to: Array("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".utf8))
        #expect(
            String(decoding: final, as: UTF8.self)
                == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        try exchange.verify(Array("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8))
        #expect(throws: WireError.self) { try exchange.verify(Array("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8)) }
        var other = SCRAM(password: "pencil", nonce: "abc")
        #expect(throws: WireError.self, "a server nonce that does not extend ours") { try other.respond(to: Array("r=xyz,s=AAAA,i=4096".utf8)) }
    }

    @Test func valuesStayValuesAndNotificationsArrive() async throws {
        try await PostgresServer.with { server in
            let client = DatabaseClient(address: try DatabaseAddress(url: server.url))
            let sneaky = "'); DROP TABLE x; --\u{1F600}"
            let none: String? = nil
            let rows = try await client.query(
                "SELECT \(sneaky)::text, \(none)::text, \(true), \(-2.5), \(Int64.max), \(Int64?.none)::int8, \(42)")
            let row = try #require(rows.first)
            #expect(try row.string(0) == sneaky)
            #expect(try row.optionalString(1) == nil)
            #expect(try row.bool(2) == true)
            #expect(try row.double(3) == -2.5)
            #expect(try row.int64(4) == Int64.max)
            #expect(try row.optionalInt64(5) == nil)
            #expect(try row.int(6) == 42)
            // A refused statement leaves the connection usable for the next.
            await #expect(throws: WireError.self) { try await client.query("SELECT * FROM no_such_table") }
            #expect(try await client.query("SELECT 1").count == 1)

            let channel = "relay_wake_a \"quoted\" name"
            let heard = AsyncStream.makeStream(of: Void.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.listen(on: channel) { heard.continuation.yield() } }
                var iterator = heard.stream.makeAsyncIterator()
                // LISTEN may not have run yet: notify until one is heard.
                let notifier = Task {
                    while !Task.isCancelled {
                        try await client.query("SELECT pg_notify(\(channel), '')")
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
                await iterator.next()
                notifier.cancel()
                group.cancelAll()
            }
            await client.close()
        }
    }
}

/// The sign-in's order, driven message by message as a server would send them.
@Suite struct SignInTests {
    @Test func aServerThatBeganSCRAMMustProveItKnowsThePassword() throws {
        var steps = SignIn(user: "relay", password: "pencil", nonce: "abc")
        guard case .saslInitial("SCRAM-SHA-256", _)? = try steps.take(.saslMechanisms(["SCRAM-SHA-256"])) else {
            Issue.record("no initial response")
            return
        }
        #expect(throws: WireError.authentication("the server ended SCRAM without proving it knows the password")) {
            _ = try steps.take(.authenticationOK)
        }
        var answered = SignIn(user: "relay", password: "pencil", nonce: "abc")
        _ = try answered.take(.saslMechanisms(["SCRAM-SHA-256"]))
        _ = try answered.take(.saslContinue(Array("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".utf8)))
        #expect(throws: WireError.authentication("the server ended SCRAM without proving it knows the password")) {
            _ = try answered.take(.authenticationOK)
        }
        #expect(!answered.isSignedIn)
    }

    @Test func aPasswordGoesOnceAndOnlyBeforeSignIn() throws {
        var trust = SignIn(user: "relay", password: "pw")
        #expect(try trust.take(.authenticationOK) == nil)
        #expect(trust.isSignedIn)
        #expect(throws: WireError.protocolViolation("an authentication message out of turn")) { _ = try trust.take(.cleartextPasswordWanted) }

        var clear = SignIn(user: "relay", password: "pw")
        #expect(try clear.take(.cleartextPasswordWanted) == .password("pw"))
        #expect(throws: WireError.protocolViolation("an authentication message out of turn")) { _ = try clear.take(.cleartextPasswordWanted) }

        // md5(md5("pw" + "relay") + salt), in hex, after "md5": PostgreSQL's documented form.
        var md5 = SignIn(user: "relay", password: "pw")
        guard case .password(let sent)? = try md5.take(.md5PasswordWanted(salt: [1, 2, 3, 4])) else {
            Issue.record("no password sent")
            return
        }
        #expect(sent.hasPrefix("md5") && sent.count == 35)
    }

    /// A server that takes the connection and says nothing is given up on, with the reason.
    @Test func aSilentServerIsGivenUpOn() async throws {
        let (listener, port) = try PostgresServer.boundSocket(listening: true)
        defer { close(listener) }
        // The kernel completes the handshake from the backlog; nobody ever reads or answers.
        let started = ContinuousClock.now
        do {
            _ = try await DatabaseConnection.connect(
                to: try DatabaseAddress(url: "postgres://relay:pw@127.0.0.1:\(port)/relay?sslmode=require"), signInWithin: .milliseconds(500))
            Issue.record("signed in to nobody")
        } catch let error as WireError {
            #expect(error == .connection("the database did not finish signing in within 500 ms"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
