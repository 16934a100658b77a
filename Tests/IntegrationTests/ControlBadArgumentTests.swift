import Foundation
import PiRelaySDK
import Testing

/// Numbers out of range from the terminal get a clear refusal, and never end the daemon: a
/// negative `approvals` limit and a huge `pair --ttl-seconds` each trapped it (a negative
/// suffix, a Double too large for an Int), taking every session and plugin with it.
@Suite struct ControlBadArgumentTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func outOfRangeNumbersAreRefusedAndTheDaemonLives() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start()
            let connection = try ScriptedTerminal(socket: chat.home.socketPath)
            connection.send(["id": 1, "method": "approvals", "params": ["limit": -1]])
            let refused = try await connection.next("the answer to approvals") { _ in true }
            connection.hangUp()
            #expect(refused["error"]?["code"] == "invalid_params", "\(refused)")
            #expect(refused["error"]?["message"]?.stringValue?.contains("limit must be 0 or more") == true, "\(refused)")

            let pairing = try PairingTerminal(chat.home, messenger: "fake-messenger", options: ["--ttl-seconds", "1e300"])
            let code = try await pairing.code()
            #expect(code["expiresInSeconds"] == 600, "at most the usual 10 minutes: \(code)")
            pairing.process.signal(SIGTERM)

            let status = try await chat.home.cli.run(["status", "--json"])
            #expect(status.status == 0, "the daemon still answers: \(status)")
            #expect(daemon.pid > 0 && kill(daemon.pid, 0) == 0)

            // The CLI refuses them before asking.
            let approvals = try await chat.home.cli.run(["approvals", "--limit=-1"])
            #expect(approvals.status == 64 && approvals.stderr.contains("--limit must be 0 or more"), "\(approvals)")
            let logs = try await chat.home.cli.run(["logs", "--lines=-2"])
            #expect(logs.status == 64 && logs.stderr.contains("--lines must be 0 or more"), "\(logs)")
        }
    }
}
