import Foundation

/// A local proxy for the proxy scenario: HTTP CONNECT (with Basic auth recorded) and SOCKS5
/// (no auth, domain or IPv4), a small Python program written to the test folder. It logs one
/// line per tunnel: "<kind> <host>:<port> auth=<header or ->".
final class TestProxy: Sendable {
    let process: ChildProcess
    let port: Int
    let logPath: String

    init(folder: String) async throws {
        let script = folder + "/proxy.py"
        let portFile = folder + "/proxy-port"
        logPath = folder + "/proxy.log"
        try Self.source.write(toFile: script, atomically: true, encoding: .utf8)
        process = try ChildProcess(
            path: "/usr/bin/python3", arguments: [script, portFile, logPath],
            environment: ["PATH=/usr/bin:/bin"], stderrPath: folder + "/proxy.stderr", pipes: false)
        let deadline = ContinuousClock.now + .seconds(10)
        var found: Int?
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let p = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                found = p
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let found else {
            process.signal(SIGKILL)
            throw ChildProcess.SpawnError(description: "the test proxy did not start")
        }
        port = found
    }

    var log: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() async {
        process.signal(SIGKILL)
        _ = await process.exitStatus()
    }

    static let source = #"""
        import socket, struct, sys, threading
        port_file, log_file = sys.argv[1], sys.argv[2]
        lock = threading.Lock()
        def log(line):
            with lock:
                with open(log_file, "a") as f:
                    f.write(line + "\n")
        def pipe(a, b):
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass
            finally:
                for s in (a, b):
                    try: s.shutdown(socket.SHUT_RDWR)
                    except OSError: pass
        def tunnel(client, host, port, kind, auth):
            log("%s %s:%d auth=%s" % (kind, host, port, auth or "-"))
            upstream = socket.create_connection((host, port))
            threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
            pipe(upstream, client)
        def recv_exact(s, n):
            data = b""
            while len(data) < n:
                chunk = s.recv(n - len(data))
                if not chunk:
                    raise OSError("closed")
                data += chunk
            return data
        def serve(client):
            try:
                first = client.recv(1, socket.MSG_PEEK)
                if first == b"\x05":
                    head = recv_exact(client, 2)
                    recv_exact(client, head[1])
                    client.sendall(b"\x05\x00")
                    ver, cmd, _, atyp = recv_exact(client, 4)
                    if atyp == 3:
                        host = recv_exact(client, recv_exact(client, 1)[0]).decode()
                    elif atyp == 1:
                        host = socket.inet_ntoa(recv_exact(client, 4))
                    else:
                        client.close(); return
                    port = struct.unpack(">H", recv_exact(client, 2))[0]
                    client.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack(">H", port))
                    tunnel(client, host, port, "SOCKS5", None)
                    return
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = client.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
                method, target, _ = head[0].split(" ", 2)
                auth = None
                for line in head[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "proxy-authorization":
                        auth = value.strip()
                if method != "CONNECT":
                    client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n"); client.close(); return
                host, _, port = target.rpartition(":")
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                tunnel(client, host.strip("[]"), int(port), "CONNECT", auth)
            except OSError:
                pass
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(server.getsockname()[1]))
        import os
        os.rename(port_file + ".tmp", port_file)
        while True:
            c, _ = server.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """#
}
