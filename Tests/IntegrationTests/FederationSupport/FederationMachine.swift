import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A stack as one machine of a federation: what the federation scenarios ask of each machine,
/// whichever messenger it runs.
protocol FederationMachine: Sendable {
    var home: TestHome { get }
    /// `pi-relayd status --json`.
    func status() async throws -> JSONValue
    func piPrompts(containing text: String) -> [JSONValue]
}

extension TelegramStack: FederationMachine {
    func status() async throws -> JSONValue { try await json("status") }
}

extension SlackStack: FederationMachine {
    func status() async throws -> JSONValue { try await json("status") }
}

extension StackHome: FederationMachine {
    func status() async throws -> JSONValue { try await json("status") }
}

extension FederationMachine {
    /// Whether this machine holds the lease on `messenger`'s ingress, as `status` says.
    func holdsIngress(_ messenger: String) async throws -> Bool {
        return try await status()["federation"]?["ingress"]?.arrayValue?.contains {
            $0["messenger"]?.stringValue == messenger && $0["active"] == true
        } == true
    }

    func waitForIngress(_ messenger: String, within seconds: Double = 60) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await holdsIngress(messenger) { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw StackFailure("no \(messenger) ingress within \(Int(seconds)) s:\n\(home.pluginLog("federation").suffix(3000))")
    }

    /// Waits until this machine lists `names` online.
    func waitForMachines(_ names: [String]) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let machines = try await status()["federation"]?["machines"]?.arrayValue ?? []
            if Set(names).isSubset(of: Set(machines.compactMap { $0["online"] == true ? $0["name"]?.stringValue : nil })) { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw StackFailure("\(names) not online")
    }

    /// Waits until msg-1 … msg-`count` all reached this machine's pi.
    func waitForPrompts(upTo count: Int, log plugin: String) async throws {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            if (1...count).allSatisfy({ !piPrompts(containing: "msg-\($0)").isEmpty }) { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        let missing = (1...count).filter { piPrompts(containing: "msg-\($0)").isEmpty }
        throw StackFailure("msg-\(missing) never reached this machine's pi:\n\(home.pluginLog(plugin).suffix(3000))")
    }

    /// Waits (up to a minute) until this machine holds `messenger`'s ingress after the holder froze
    /// at `frozenAt`; returns how long that took, printed for the record.
    func takeOver(_ messenger: String, frozenAt: Date) async throws -> TimeInterval {
        while try await !holdsIngress(messenger), Date().timeIntervalSince(frozenAt) < 60 {
            try await Task.sleep(for: .milliseconds(250))
        }
        let took = Date().timeIntervalSince(frozenAt)
        print("federation failover (\(messenger)): another machine took the bot \(String(format: "%.1f", took)) s after SIGSTOP")
        return took
    }

    /// msg-1 … msg-`count` each reached this machine's pi exactly once.
    func expectEachPromptOnce(upTo count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for n in 1...count {
            let times = piPrompts(containing: "msg-\(n)").count
            #expect(times == 1, "msg-\(n) reached this machine's pi \(times) times", sourceLocation: sourceLocation)
        }
    }
}

extension Daemon {
    /// A frozen machine's end: its whole process group killed, then woken so the kill lands.
    func killFrozen() async {
        process.signalGroup(SIGKILL)
        signal(SIGCONT)
        _ = await waitForExit()
    }
}
