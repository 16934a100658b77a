import Foundation
import PiRelaySDK

/// A stack as one machine of a federation: what the federation scenarios ask of each machine,
/// whichever messenger it runs.
protocol FederationMachine: Sendable {
    var home: TestHome { get }
    func json(_ arguments: String...) async throws -> JSONValue
    func piPrompts(containing text: String) -> [JSONValue]
}

extension TelegramStack: FederationMachine {}
extension SlackStack: FederationMachine {}

extension FederationMachine {
    /// Whether this machine holds the lease on `messenger`'s ingress, as `status` says.
    func holdsIngress(_ messenger: String) async throws -> Bool {
        let status = try await json("status")
        return status["federation"]?["ingress"]?.arrayValue?.contains { $0["messenger"]?.stringValue == messenger && $0["active"] == true } == true
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
            let machines = try await json("status")["federation"]?["machines"]?.arrayValue ?? []
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
}
