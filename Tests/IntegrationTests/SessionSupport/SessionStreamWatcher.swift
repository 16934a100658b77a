import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A `pi-relayd stream S --json` running in the background, as in a second terminal: its
/// output is read as it arrives, and it is stopped like Ctrl-C stops it.
final class SessionStreamWatcher: Sendable {
    let process: SpawnedProcess

    init(_ home: SessionHome, session: String, name: String) throws {
        let base = home.home.scratch + "/stream-\(name)"
        process = try SpawnedProcess(
            BuildProducts.relayd, ["stream", session, "--json"],
            environment: home.home.environment(),
            stdoutPath: base + ".out", stderrPath: base + ".err")
    }

    /// The complete lines printed so far, parsed.
    var events: [JSONValue] {
        let text = process.stdout
        let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        return complete.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    func events(ofType type: String) -> [JSONValue] {
        events.filter { $0["type"]?.stringValue == type }
    }

    /// Waits until an event of `type` has been printed; returns it.
    @discardableResult
    func waitFor(
        _ type: String, timeout: Duration = .seconds(30),
        where condition: @escaping (JSONValue) -> Bool = { _ in true }
    ) async throws -> JSONValue {
        try await IntegrationTests.waitFor("stream printed a \(type) event", timeout: timeout, every: .milliseconds(100)) {
            if let exit = process.poll() {
                throw SessionStreamEnded(exit: exit, stdout: process.stdout, stderr: process.stderr)
            }
            return events(ofType: type).first(where: condition)
        }
    }

    /// Ctrl-C: SIGINT to its process group; then its exit.
    func interrupt() async -> ProcessExit? {
        process.signalGroup(SIGINT)
        if let exit = await process.wait(timeout: .seconds(10)) { return exit }
        process.signalGroup(SIGKILL)
        return await process.wait(timeout: .seconds(10))
    }
}
