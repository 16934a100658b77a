import Foundation
import SupervisorIO

#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL over TCP with TLS, for the federation's `sslmode=verify-full`: a certificate
/// authority made at test time with openssl (which Debian's postgresql brings, through
/// ssl-cert), a server certificate it signs for `localhost` and 127.0.0.1, and a second CA that
/// signed nothing, to be refused.
extension PostgresServer {
    public struct TLSFiles: Sendable {
        /// The CA that signed the server's certificate.
        public let authority: String
        /// A CA that did not.
        public let stranger: String
        public let port: Int
    }

    /// Makes a cluster with TLS on 127.0.0.1 at a free port, and starts it.
    public static func startWithTLS() async throws -> (server: PostgresServer, tls: TLSFiles) {
        let server = try await made()
        let dir = server.folder + "/tls"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, subject) in [("ca", "pi-relayd test CA"), ("stranger", "another test CA")] {
            try await openssl(
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/\(name).key", "-out", "\(dir)/\(name).pem", "-days", "1",
                    "-subj", "/CN=\(subject)",
                ], in: dir)
        }
        try await openssl(
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr", "-subj", "/CN=localhost"],
            in: dir)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(dir)/san.cnf", atomically: true, encoding: .utf8)
        try await openssl(
            [
                "x509", "-req", "-in", "\(dir)/server.csr", "-CA", "\(dir)/ca.pem", "-CAkey", "\(dir)/ca.key", "-CAcreateserial",
                "-out", "\(dir)/server.crt", "-days", "1", "-extfile", "\(dir)/san.cnf",
            ], in: dir)
        // PostgreSQL takes a key only its own user can read.
        chmod("\(dir)/server.key", 0o600)
        if getuid() == 0, let user = postgresUser() {
            for file in ["", "/server.key", "/server.crt"] { chown(dir + file, user.uid, user.gid) }
        }
        let port = try freePort()
        server.listenAddresses = "127.0.0.1"
        server.extraOptions = "-p \(port) -c ssl=on -c ssl_cert_file=\(dir)/server.crt -c ssl_key_file=\(dir)/server.key"
        try await server.startServer()
        return (server, TLSFiles(authority: "\(dir)/ca.pem", stranger: "\(dir)/stranger.pem", port: port))
    }

    private static func openssl(_ arguments: [String], in folder: String) async throws {
        let spec = ChildSpec(
            executable: "/usr/bin/openssl", arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], workingDirectory: folder)
        let output = await ChildOutput.collect(spec, maxBytes: 1 << 20, timeout: .seconds(60))
        guard output.succeeded else {
            throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")): \(output.exit)\n\(output.stderr)")
        }
    }

    /// A TCP port nothing listens on now.
    static func freePort() throws -> Int {
        let (fd, port) = try boundSocket()
        close(fd)
        return port
    }

    /// A TCP socket bound to a free port on 127.0.0.1, listening when asked (the kernel then
    /// completes connections to it that nobody accepts: a server that says nothing); the caller
    /// closes it.
    public static func boundSocket(listening: Bool = false) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, !listening || listen(fd, 4) == 0 else {
            close(fd)
            throw Failure(description: "no free port")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
