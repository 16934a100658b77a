#if canImport(Glibc)
import Glibc
#endif

/// The built plugin executable run as a child with posix_spawn (Foundation.Process is banned in
/// this project), stdin and stdout on pipes and stderr collected, read with poll() and timeouts so
/// a broken plugin fails the test instead of hanging it.
final class PluginProcess {
    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private let errors: Int32
    private var buffered: [UInt8] = []
    private var status: Int32?

    /// The executable next to the test bundle, as `swift build` lays them out.
    static func builtProduct(_ name: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var candidates: [String] = []
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            candidates.append(directory(of: exe))
        }
        candidates.append(directory(of: CommandLine.arguments[0]))
        for dir in candidates {
            // The runner may sit inside the .xctest bundle (macOS layout) or be the bundle itself.
            for base in [dir, directory(of: dir), directory(of: directory(of: dir))] {
                let path = base + "/" + name
                if access(path, X_OK) == 0 { return path }
            }
        }
        throw Failure(description: "\(name) not found next to the test bundle (\(candidates)); build it first: swift build --product \(name)")
    }

    /// A pipe whose ends close on exec, so children spawned concurrently by other tests do not
    /// inherit them (an inherited write end would keep our child's stdin from ever reaching EOF).
    /// Glibc's module map hides pipe2, so it is looked up at run time with the C calling convention.
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
        if let symbol = dlsym(nil, "pipe2") {
            let pipe2 = unsafeBitCast(symbol, to: Pipe2.self)
            return fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress, O_CLOEXEC) } == 0
        }
        guard pipe(&fds) == 0 else { return false }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    /// A fresh empty directory for the plugin's state and spool.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/pi-relay-formatter-test-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw Failure(description: "mkdtemp failed: errno \(errno)")
        }
        return String(cString: made)
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    init(path: String, environment: [String: String]) throws {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard Self.makePipe(&inPipe), Self.makePipe(&outPipe), Self.makePipe(&errPipe) else {
            throw Failure(description: "pipe2 failed: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, nil, argv, envp)
        close(inPipe[0])
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw Failure(description: "posix_spawn \(path) failed: \(rc)")
        }
        pid = child
        input = inPipe[1]
        output = outPipe[0]
        errors = errPipe[0]
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var s: Int32 = 0
            waitpid(pid, &s, 0)
        }
        if input >= 0 { close(input) }
        close(output)
        close(errors)
    }

    func writeLine(_ line: String) throws {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "write to the plugin failed: errno \(errno)") }
            offset += n
        }
    }

    /// The next line from the plugin's stdout, without its LF; nil at end of file.
    func readLine(timeoutMs: Int32 = 10_000) throws -> String? {
        while true {
            if let lf = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<lf], as: UTF8.self)
                buffered.removeSubrange(...lf)
                return line
            }
            var fds = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, timeoutMs)
            guard ready > 0 else { throw Failure(description: "no line from the plugin within \(timeoutMs) ms") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if n <= 0 { return nil }
            buffered.append(contentsOf: chunk[0..<n])
        }
    }

    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// Waits for the exit status (the code, or 128 + signal), killing the child after the timeout.
    func waitForExit(timeoutMs: Int = 10_000) throws -> Int32 {
        if let status { return status }
        var waited = 0
        while true {
            var s: Int32 = 0
            let r = waitpid(pid, &s, WNOHANG)
            if r == pid {
                let code = (s & 0x7F) == 0 ? (s >> 8) & 0xFF : 128 + (s & 0x7F)
                status = code
                return code
            }
            if waited >= timeoutMs {
                kill(pid, SIGKILL)
                waitpid(pid, &s, 0)
                status = -1
                throw Failure(description: "the plugin did not exit within \(timeoutMs) ms")
            }
            usleep(10_000)
            waited += 10
        }
    }

    /// Everything the plugin wrote to stderr (call after it exited).
    func standardError() -> String {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var fds = pollfd(fd: errors, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, 100) > 0 else { break }
            let n = chunk.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            all.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: all, as: UTF8.self)
    }
}
