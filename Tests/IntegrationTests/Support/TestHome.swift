import Foundation
import PiRelaySDK
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A throw-away `PI_RELAYD_HOME` with its plugins folder and config, plus a scratch folder for
/// what the tests themselves write (CLI output, the fakes' event log). It lives under /tmp with a
/// short name: the control socket's path must fit in 107 bytes.
final class TestHome: Sendable {
    /// The directory holding everything; removed at the end.
    let root: String
    /// `PI_RELAYD_HOME`.
    let path: String
    let scratch: String
    private let daemons = Mutex<[Daemon]>([])
    /// Processes a test started in this home besides daemons (a terminal's pi): killed and
    /// reaped before the check for what the daemon left behind.
    private let companions = Mutex<[SpawnedProcess]>([])

    init(config: String? = nil) throws {
        var template = Array("/tmp/prd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw SpawnedProcess.SpawnError(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        root = String(cString: made)
        path = root + "/h"
        scratch = root + "/t"
        for dir in [path, path + "/plugins", scratch] {
            try FileManager.default.createDirectory(
                atPath: dir, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        if let config { try writeConfig(config) }
    }

    /// Runs `body` with a fresh home and always cleans up after it: every daemon it started is
    /// stopped (killed if need be), every process left with this home is killed, the folder is
    /// removed. A failure is reported with the daemon's log attached. `gated` scenarios (those
    /// that run a daemon) wait for a place in `ScenarioGate`.
    static func with<T>(
        config: String? = nil, gated: Bool = true,
        _ body: (TestHome) async throws -> T
    ) async throws -> T {
        if gated { await ScenarioGate.shared.enter() }
        let result: Result<T, any Error>
        do {
            let home = try TestHome(config: config)
            do {
                result = .success(try await body(home))
            } catch {
                result = .failure(ScenarioFailure(underlying: error, diagnostics: home.diagnostics()))
            }
            await home.tearDown()
        } catch {
            result = .failure(error)
        }
        if gated { await ScenarioGate.shared.leave() }
        return try result.get()
    }

    // MARK: Layout

    var pluginsDir: String { path + "/plugins" }
    var logsDir: String { path + "/logs" }
    var socketPath: String { path + "/relayd.sock" }
    var fakeEventLog: String { scratch + "/fakes.jsonl" }
    func pluginStateDir(_ name: String) -> String { path + "/state/plugins/" + name }

    func writeConfig(_ yaml: String) throws {
        try write(path + "/config.yaml", yaml, mode: 0o600)
    }

    /// Writes a file inside the home (e.g. "plugins/notes.txt") with exactly `mode`.
    func writeFile(_ relative: String, _ contents: String, mode: mode_t) throws {
        try write(path + "/" + relative, contents, mode: mode)
    }

    private func write(_ file: String, _ contents: String, mode: mode_t) throws {
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        // chmod after writing: the umask would otherwise clear the group/other bits a test needs.
        guard chmod(file, mode) == 0 else {
            throw SpawnedProcess.SpawnError(description: "chmod \(file): \(String(cString: strerror(errno)))")
        }
    }

    /// Puts a fake plugin in plugins/ as a symlink named `id`. The link points at a private copy
    /// of the fake beside a copy of `_proto.py` (which the fakes load from their real folder):
    /// the copies are 0755 whatever the checkout's umask, and the supervisor refuses plugins that
    /// are writable by group or others.
    func installFake(_ fake: String, as id: String? = nil) throws {
        let folder = scratch + "/fakes"
        if !FileManager.default.fileExists(atPath: folder + "/_proto.py") {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try copy(RepoPaths.fake("_proto.py"), to: folder + "/_proto.py", mode: 0o644)
        }
        if !FileManager.default.fileExists(atPath: folder + "/" + fake) {
            try copy(RepoPaths.fake(fake), to: folder + "/" + fake, mode: 0o755)
        }
        try FileManager.default.createSymbolicLink(
            atPath: pluginsDir + "/" + (id ?? fake),
            withDestinationPath: folder + "/" + fake)
    }

    /// Links a built plugin executable (`pi-relay-formatter`, say) into plugins/ as `id`.
    func linkBuiltPlugin(_ product: String, as id: String) throws {
        let built = BuildProducts.executable(product)
        guard FileManager.default.isExecutableFile(atPath: built) else {
            throw SpawnedProcess.SpawnError(description: "\(built) is not built")
        }
        try FileManager.default.createSymbolicLink(atPath: pluginsDir + "/" + id, withDestinationPath: built)
    }

    /// Puts a copy of examples/echo-plugin.py in plugins/ as `id`.
    func installEcho(as id: String = "echo") throws {
        try copy(RepoPaths.echoExample, to: pluginsDir + "/" + id, mode: 0o755)
    }

    func installFileMessenger(as id: String = "filechat") throws {
        try copy(RepoPaths.fileMessengerExample, to: pluginsDir + "/" + id, mode: 0o755)
    }

    private func copy(_ source: String, to destination: String, mode: mode_t) throws {
        let contents = try String(contentsOfFile: source, encoding: .utf8)
        try write(destination, contents, mode: mode)
    }

    func removePlugin(_ id: String) throws {
        try FileManager.default.removeItem(atPath: pluginsDir + "/" + id)
    }

    // MARK: Running things

    /// The environment every child gets: this test's home, no bundled plugins (so only what a
    /// test installs runs), and the fakes' event log. Settings from the caller's environment that
    /// would change a fake's or the daemon's behaviour are dropped.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("PI_RELAY") && !key.hasPrefix("FAKE_")
        }
        env["PI_RELAYD_HOME"] = path
        env["PI_RELAYD_BUNDLED_PLUGINS"] = ""
        env["FAKE_PLUGIN_LOG"] = fakeEventLog
        env.merge(extra) { _, new in new }
        return env
    }

    var cli: CLI { CLI(environment: environment(), scratch: scratch) }

    /// The CLI with more environment (`PI_CODING_AGENT_DIR`, say).
    func cli(extra: [String: String]) -> CLI { CLI(environment: environment(extra), scratch: scratch) }

    /// Runs one `pi-relayd` command against this home.
    func run(_ arguments: String..., timeout: Duration = .seconds(60)) async throws -> CLIResult {
        try await cli.run(arguments, timeout: timeout)
    }

    /// A process the test started with this home's environment; the teardown ends it.
    func adopt(_ process: SpawnedProcess) {
        companions.withLock { $0.append(process) }
    }

    /// Kills a daemon with SIGKILL, as a crash would, and waits for it: the teardown then expects
    /// no clean exit of it. Its plugins and pi children see their pipes close and go.
    func crash(_ daemon: Daemon) async {
        kill(daemon.pid, SIGKILL)
        _ = await daemon.terminate(grace: .seconds(5))
        daemons.withLock { $0.removeAll { $0.pid == daemon.pid } }
    }

    /// Starts `pi-relayd start --foreground` and waits for its control socket. `environment`
    /// reaches the plugins too (the daemon passes its environment on).
    /// The regular files under the test's folder that hold any of `needles`, and how many files
    /// were read. Symbolic links are not followed: plugins/ links the built executables, which are
    /// large and never hold a test's secret (reading them took seconds of a test thread).
    func files(containing needles: [String]) -> (checked: Int, found: [(path: String, needle: String)]) {
        var checked = 0
        var found: [(path: String, needle: String)] = []
        for relative in FileManager.default.enumerator(atPath: root)?.allObjects.compactMap({ $0 as? String }) ?? [] {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, let data = FileManager.default.contents(atPath: path) else {
                continue
            }
            checked += 1
            for needle in needles where data.range(of: Data(needle.utf8)) != nil { found.append((path, needle)) }
        }
        return (checked, found)
    }

    /// A daemon the test kills itself (SIGKILL, a frozen machine): not stopped or checked at the
    /// end, and numbered apart from the others.
    func startDoomedDaemon(environment extra: [String: String] = [:]) async throws -> Daemon {
        let daemon = try Daemon(home: self, environment: environment(extra), number: 90)
        try await daemon.waitUntilListening()
        return daemon
    }

    func startDaemon(environment extra: [String: String] = [:]) async throws -> Daemon {
        let n = daemons.withLock { $0.count }
        let daemon = try Daemon(home: self, environment: environment(extra), number: n)
        daemons.withLock { $0.append(daemon) }
        try await daemon.waitUntilListening()
        return daemon
    }

    // MARK: Reading what happened

    func read(_ relative: String) -> String {
        (try? String(contentsOfFile: path + "/" + relative, encoding: .utf8)) ?? ""
    }

    /// logs/pi-relayd.log (the current file).
    var daemonLog: String { read("logs/pi-relayd.log") }

    func pluginLog(_ name: String) -> String { read("logs/\(name).log") }

    /// The fakes' recorded events (see Tests/Fakes/plugins/README.md), oldest first.
    func fakeEvents(_ event: String? = nil, plugin: String? = nil) -> [JSONValue] {
        let text = (try? String(contentsOfFile: fakeEventLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }.filter {
            (event == nil || $0["event"]?.stringValue == event) && (plugin == nil || $0["plugin"]?.stringValue == plugin)
        }
    }

    private func diagnostics() -> String {
        let tail = daemonLog.split(separator: "\n").suffix(60).joined(separator: "\n")
        let stderrs = daemons.withLock { list in
            list.map { "daemon \($0.pid) stderr (tail):\n" + $0.process.stderr.split(separator: "\n").suffix(10).joined(separator: "\n") }
        }
        // A plugin's own log often says what the daemon's does not (a failed send, a retry).
        let logs = path + "/logs"
        let plugins = ((try? FileManager.default.contentsOfDirectory(atPath: logs)) ?? []).filter { $0.hasSuffix(".log") && $0 != "pi-relayd.log" }
            .sorted()
        let pluginTails = plugins.map { name in
            let text = (try? String(contentsOfFile: logs + "/" + name, encoding: .utf8)) ?? ""
            return "logs/\(name) (tail):\n" + text.split(separator: "\n").suffix(30).joined(separator: "\n")
        }
        return "home \(path)\nlogs/pi-relayd.log (tail):\n\(tail)\n" + (pluginTails + stderrs).joined(separator: "\n")
    }

    // MARK: Cleaning up

    /// Every scenario ends with the checks of a clean shutdown: each daemon exits 0 on SIGTERM
    /// (or has already exited 0) and leaves no process of this home behind.
    private func tearDown() async {
        var clean = true
        for daemon in daemons.withLock({ $0 }) {
            let (exit, forced) = await daemon.terminate()
            if forced || exit != .exited(0) {
                clean = false
                Issue.record(
                    "pi-relayd (pid \(daemon.pid)) ended with \(exit.map { "\($0)" } ?? "no exit")\(forced ? " only after SIGKILL" : "")\n\(diagnostics())"
                )
            }
        }
        for companion in companions.withLock({ $0 }) {
            companion.signal(SIGKILL)
            if await companion.wait(timeout: .seconds(10)) == nil {
                Issue.record("\(companion.command) (pid \(companion.pid)) did not die of SIGKILL within 10 s")
            }
        }
        // Plugins run in sessions of their own, so the daemon's group does not include them.
        let left = ProcessTable.pids(withEnvironment: "PI_RELAYD_HOME", value: path)
        for pid in left {
            if let group = ProcessTable.processGroup(of: pid) { kill(-group, SIGKILL) }
            kill(pid, SIGKILL)
        }
        if clean && !left.isEmpty {
            Issue.record("processes left running after pi-relayd stopped: \(left)\n\(diagnostics())")
        }
        if ProcessInfo.processInfo.environment["PI_RELAYD_KEEP_TEST_HOMES"] == nil {
            try? FileManager.default.removeItem(atPath: root)
        }
    }
}
