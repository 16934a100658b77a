import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A running `pi-relayd start --foreground`, started by a `TestHome`, which stops it at the end.
final class Daemon: Sendable {
    let home: TestHome
    let process: SpawnedProcess

    var pid: Int32 { process.pid }

    init(home: TestHome, environment: [String: String], number: Int) throws {
        self.home = home
        process = try SpawnedProcess(
            BuildProducts.relayd, ["start", "--foreground"], environment: environment,
            stdoutPath: home.scratch + "/daemon-\(number).out",
            stderrPath: home.scratch + "/daemon-\(number).err")
    }

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    func waitUntilListening(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !ControlSocket.accepts(home.socketPath) {
            if let exit = process.poll() {
                throw StartFailure(description: "pi-relayd exited (\(exit)) before listening:\n\(process.stderr)")
            }
            if ContinuousClock.now >= deadline {
                throw StartFailure(description: "pi-relayd not listening on \(home.socketPath) after \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    // MARK: Asking it

    /// `pi-relayd plugins --json`, by name.
    func plugins() async throws -> [String: PluginInfo] {
        let result = try await home.run("plugins", "--json")
        guard result.status == 0, let list = try result.json().arrayValue else {
            throw StartFailure(description: "unexpected answer to plugins --json: \(result)")
        }
        var byName: [String: PluginInfo] = [:]
        for entry in list {
            let info = PluginInfo(json: entry)
            byName[info.name] = info
        }
        return byName
    }

    /// Waits until plugin `name` is listed and satisfies `condition`; returns what was listed.
    @discardableResult
    func waitForPlugin(
        _ name: String, _ what: String, timeout: Duration = .seconds(20),
        _ condition: (PluginInfo) -> Bool
    ) async throws -> PluginInfo {
        var last: PluginInfo?
        do {
            return try await waitFor("plugin \(name) \(what)", timeout: timeout) {
                let info = try await plugins()[name]
                last = info
                return info.flatMap { condition($0) ? $0 : nil }
            }
        } catch let timeout as WaitTimeout {
            throw WaitTimeout(
                what: timeout.what, timeout: timeout.timeout, lastError: timeout.lastError,
                lastSeen: last.map { "\($0)" } ?? "not listed")
        }
    }

    /// Waits until `name` is running (handshake done) and returns it.
    @discardableResult
    func waitForRunning(_ name: String, timeout: Duration = .seconds(20)) async throws -> PluginInfo {
        try await waitForPlugin(name, "is running", timeout: timeout) { $0.state == "running" && $0.pid != nil }
    }

    // MARK: Stopping it

    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    func waitForExit(timeout: Duration = .seconds(30)) async -> ProcessExit? {
        await process.wait(timeout: timeout)
    }

    /// SIGTERM, then SIGKILL to its process group if it has not exited in time. `forced` says
    /// whether the kill was needed.
    func terminate(grace: Duration = .seconds(20)) async -> (exit: ProcessExit?, forced: Bool) {
        if let exit = process.poll() { return (exit, false) }
        process.signal(SIGTERM)
        if let exit = await process.wait(timeout: grace) { return (exit, false) }
        process.signalGroup(SIGKILL)
        return (await process.wait(timeout: .seconds(10)), true)
    }
}
