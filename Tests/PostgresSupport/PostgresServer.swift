import Foundation
import SupervisorIO

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL for one test (the federation store's tests and the federated stack tests):
/// Debian's server programs (under /usr/lib/postgresql/*/bin, not on PATH) make a cluster in a
/// temporary folder and serve it on a Unix socket there, with no TCP listener unless it is
/// started with TLS (`startWithTLS`). PostgreSQL refuses to run as root, so under root (as CI runs) the folder is given
/// to the `postgres` user and the programs run as it through runuser.
public final class PostgresServer: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    public let folder: String
    public var data: String { folder + "/data" }
    /// The socket's folder: `postgres://relay@/postgres?host=FOLDER`.
    public var socketFolder: String { folder + "/socket" }
    public var url: String { "postgres://relay@/postgres?host=\(socketFolder)" }
    private let bin: String
    /// Where it listens over TCP: nowhere unless started with TLS.
    var listenAddresses = ""
    /// Server options beyond the socket's (TLS and a TCP port).
    var extraOptions = ""

    /// Makes and starts a cluster; throws when PostgreSQL is not installed (`make deps`).
    /// `superuser`: the role initdb makes (the federation's tests use it as `relay`; the guide's
    /// test makes `relay` itself, as a reader would, and needs another).
    public static func start(superuser: String = "relay") async throws -> PostgresServer {
        let server = try await made(superuser: superuser)
        try await server.startServer()
        return server
    }

    /// `body` with a started cluster, removed after it whether it threw or not.
    public static func with(superuser: String = "relay", _ body: (PostgresServer) async throws -> Void) async throws {
        let server = try await start(superuser: superuser)
        do { try await body(server) } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    /// A cluster made, not started.
    static func made(superuser: String = "relay") async throws -> PostgresServer {
        let server = try PostgresServer()
        try await server.run("initdb", ["-D", server.data, "-U", superuser, "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
        return server
    }

    private init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let newest = versions.compactMap(Int.init).max() else {
            throw Failure(description: "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): make deps installs Debian's postgresql")
        }
        bin = "/usr/lib/postgresql/\(newest)/bin"
        var template = Array("/tmp/prd-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        folder = String(cString: made)
        try FileManager.default.createDirectory(atPath: socketFolder, withIntermediateDirectories: true)
        if getuid() == 0 {
            guard let user = Self.postgresUser() else { throw Failure(description: "running as root and there is no postgres user") }
            for path in [folder, socketFolder] { chown(path, user.uid, user.gid) }
        }
    }

    /// The `postgres` user's ids. getpwnam_r, not getpwnam: getpwnam's answer sits in memory the
    /// next lookup on any thread overwrites, and tests start servers in parallel.
    static func postgresUser() -> (uid: uid_t, gid: gid_t)? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r("postgres", &entry, &buffer, buffer.count, &found) == 0, found != nil else { return nil }
        return (entry.pw_uid, entry.pw_gid)
    }

    /// Starts the server (again, after `stop`), waiting until it takes connections. Small shared
    /// buffers: a test's tables are tiny, and a dozen servers start at once in a parallel run.
    public func startServer() async throws {
        try await run(
            "pg_ctl",
            [
                "-D", data, "-l", folder + "/server.log", "-w", "-t", "60", "-o",
                "-c listen_addresses='\(listenAddresses)' -k \(socketFolder) -c unix_socket_permissions=0700 -c fsync=off -c shared_buffers=16MB \(extraOptions)",
                "start",
            ])
    }

    /// Stops the server at once, as a crash or a power cut would (`-m immediate`), or cleanly.
    public func stop(immediately: Bool = false) async throws {
        try await run("pg_ctl", ["-D", data, "-w", "-m", immediately ? "immediate" : "fast", "stop"])
    }

    /// Stops the server and removes its folder.
    public func remove() async {
        try? await stop(immediately: true)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Every row of the database `postgres`, as pg_dump writes it (data only).
    public func dump() async throws -> String {
        try await run("pg_dump", ["-h", socketFolder, "-U", "relay", "--data-only", "postgres"]).joined(separator: "\n")
    }

    /// Runs one SQL statement in the database `postgres` as the federation's user; the rows it
    /// returns, one line each, columns separated by `|`.
    @discardableResult
    public func sql(_ statement: String) async throws -> [String] {
        try await run("psql", ["-h", socketFolder, "-U", "relay", "-d", "postgres", "-At", "-v", "ON_ERROR_STOP=1", "-c", statement])
    }

    /// Runs one of PostgreSQL's programs, as the `postgres` user under root.
    @discardableResult
    public func run(_ program: String, _ arguments: [String]) async throws -> [String] {
        var executable = bin + "/" + program
        var argv = arguments
        if getuid() == 0 {
            argv = ["-u", "postgres", "--", executable] + arguments
            executable = "/usr/sbin/runuser"
        }
        let spec = ChildSpec(
            executable: executable, arguments: argv, environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C.UTF-8"],
            workingDirectory: folder)
        let output = await ChildOutput.collect(spec, maxBytes: 1 << 20, timeout: .seconds(90))
        guard output.succeeded else {
            let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(
                description:
                    "\(program) \(arguments.joined(separator: " ")): \(output.exit)\n\(output.lines.joined(separator: "\n"))\n\(output.stderr)\n\(log.suffix(2000))"
            )
        }
        return output.lines
    }
}
