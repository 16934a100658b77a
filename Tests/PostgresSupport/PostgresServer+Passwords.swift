import Foundation

/// PostgreSQL over TCP on 127.0.0.1 with each way of signing in by password that the
/// federation's client speaks: role `scram` (scram-sha-256, PostgreSQL's default since 14),
/// `md5user` (md5, a password stored as MD5) and `plain` (password, sent in clear), all with
/// the password `PostgresServer.password`.
extension PostgresServer {
    public static let password = "s3cret pass,word=ü"

    public static func startWithPasswords() async throws -> (server: PostgresServer, port: Int) {
        let server = try await made()
        try """
        local all all trust
        host all scram 127.0.0.1/32 scram-sha-256
        host all md5user 127.0.0.1/32 md5
        host all plain 127.0.0.1/32 password

        """.write(toFile: server.data + "/pg_hba.conf", atomically: true, encoding: .utf8)
        let port = try freePort()
        server.listenAddresses = "127.0.0.1"
        server.extraOptions = "-p \(port)"
        try await server.startServer()
        let quoted = password.replacingOccurrences(of: "'", with: "''")
        try await server.run(
            "psql",
            [
                "-h", server.socketFolder, "-p", "\(port)", "-U", "relay", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c",
                """
                SET password_encryption = 'scram-sha-256'; CREATE ROLE scram LOGIN PASSWORD '\(quoted)'; CREATE ROLE plain LOGIN PASSWORD '\(quoted)';
                SET password_encryption = 'md5'; CREATE ROLE md5user LOGIN PASSWORD '\(quoted)';
                """,
            ])
        return (server, port)
    }
}
