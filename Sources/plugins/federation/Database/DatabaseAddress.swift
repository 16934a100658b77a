import FoundationEssentials
import NIOSSL

/// Where the federation database is, read from the URL in the environment variable that
/// `federation.databaseEnv` names (in `.env`, never config.yaml): `postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=verify-full&sslrootcert=/path/ca.pem`,
/// or a Unix socket's folder as `postgres://USER@/DB?host=/run/postgresql`. Its description
/// never shows the password.
public struct DatabaseAddress: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode`, less the ones that fall back to plain text when TLS fails.
    public enum TLSMode: String, Sendable, Equatable {
        case disable
        case require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var user: String
    let password: String?
    public var database: String
    /// A host name or address; nil for a Unix socket.
    public var host: String?
    public var port: Int
    /// The socket's folder, for a Unix socket.
    public var socketFolder: String?
    public var tls: TLSMode
    /// The CA certificates (PEM) that sign the server's, for `verify-ca` and `verify-full`, and
    /// for `require`, which then checks them as `verify-ca` does; nil for the system's.
    public var rootCertificates: String?

    /// Reads `url`; the error says what is wrong without repeating the URL.
    public init(url: String) throws(FederationError) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw .database(what: "the database URL", detail: "must start with postgres:// (postgres://USER:PASSWORD@HOST/DATABASE)")
        }
        let query = Dictionary((parts.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        guard let user = parts.user, !user.isEmpty else {
            throw .database(what: "the database URL", detail: "names no user (postgres://USER@HOST/DATABASE)")
        }
        self.user = user
        password = parts.password
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        database = path.isEmpty ? user : path
        port = parts.port ?? 5432
        let host = parts.host ?? ""
        if let folder = query["host"], folder.hasPrefix("/") {
            socketFolder = folder
            self.host = nil
        } else if !host.isEmpty {
            self.host = host
            socketFolder = nil
        } else {
            throw .database(what: "the database URL", detail: "names no host (postgres://USER@HOST/DATABASE, or ?host=/socket/folder)")
        }
        rootCertificates = query["sslrootcert"]
        if socketFolder != nil {
            tls = .disable
        } else {
            // Over the network, TLS that checks the server's name unless the URL says otherwise:
            // whoever can reach the database can drive every machine's pi.
            let mode = query["sslmode"] ?? TLSMode.verifyFull.rawValue
            guard let tls = TLSMode(rawValue: mode) else {
                throw .database(
                    what: "the database URL",
                    detail: "sslmode=\(mode) is not taken: use verify-full (the default), verify-ca, require or disable")
            }
            self.tls = tls
        }
    }

    /// The Unix socket's path, as PostgreSQL names it in the folder.
    public var socketPath: String? { socketFolder.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The TLS context `sslmode` asks for; nil for `disable` and for a Unix socket.
    func tlsContext() throws -> NIOSSLContext? {
        try tlsSettings().map { try NIOSSLContext(configuration: $0) }
    }

    /// TLS as `sslmode` asks, the URL's `sslrootcert` trusted instead of the system's roots; nil
    /// for `disable`.
    private func tlsSettings() -> TLSConfiguration? {
        guard tls != .disable else { return nil }
        var settings = TLSConfiguration.makeClientConfiguration()
        switch tls {
        case .disable: return nil
        // libpq checks `require` against a named root certificate as it does `verify-ca`: an
        // owner who names a CA expects it to be checked.
        case .require: settings.certificateVerification = rootCertificates == nil ? .none : .noHostnameVerification
        case .verifyCA: settings.certificateVerification = .noHostnameVerification
        case .verifyFull: settings.certificateVerification = .fullVerification
        }
        if let rootCertificates { settings.trustRoots = .file(rootCertificates) }
        return settings
    }

    public var description: String {
        let place = socketFolder.map { "socket \($0)" } ?? "\(host ?? "?"):\(port)"
        return "postgres://\(user)\(password == nil ? "" : ":***")@\(place)/\(database) (tls \(tls.rawValue))"
    }
}
