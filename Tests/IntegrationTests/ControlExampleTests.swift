import Foundation
import PiRelaySDK
import Testing

/// docs/PROTOCOL.md §9 shows a request for every control method. Each is sent, as written, to a
/// running daemon with a session on the fake pi: none may be refused as an unknown method or for
/// its parameters. The folder and the session id in the examples become this test's.
@Suite struct ControlExampleTests {
    static let documentedFolder = "/home/ana/src/web"
    static let documentedSessionID = "4f2a9c1e"

    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func everyDocumentedRequestIsTakenByTheDaemon() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            try Data("# web\n".utf8).write(to: URL(fileURLWithPath: s.project + "/README.md"))
            var sessionID = Self.documentedSessionID
            let requests = try Self.requests()
            #expect(requests.count == ControlMethod.allCases.count)
            for (number, example) in requests.enumerated() {
                let text = example.replacing(Self.documentedFolder, with: s.project).replacing(Self.documentedSessionID, with: sessionID)
                let request = try JSONValue.parse(text)
                let method = request["method"]?.stringValue ?? "?"
                let connection = try ScriptedTerminal(socket: s.home.socketPath)
                connection.send(request)
                // The first line back: an answer, or a streaming method's first event.
                let answer = try await connection.next("the answer to \(method)", timeout: .seconds(60)) { _ in true }
                connection.hangUp()
                let code = answer["error"]?["code"]?.stringValue
                // Refusals that are about this home (no chat, no plugin, no such question) are fine;
                // pi refusing the example is not.
                #expect(
                    ![.invalidParams, .methodNotFound, .piError].contains(code.map(ErrorCode.init(rawValue:))),
                    "example \(number + 1), \(method): \(answer)")
                if method == "new", let id = answer["result"]?["id"]?.stringValue { sessionID = id }
            }
            #expect(await daemon.waitForExit(timeout: .seconds(30)) == .exited(0), "the last example stops the daemon")
        }
    }

    /// The lines of PROTOCOL.md's `ControlRequest lines` blocks, in document order.
    static func requests() throws -> [String] {
        let path = String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound)) + "/docs/PROTOCOL.md"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var requests: [String] = []
        var inBlock = false
        for (index, line) in lines.enumerated() {
            if line == "```json", index >= 2,
                lines[index - 2] == "<!-- wire: ControlRequest lines -->" || lines[index - 1] == "<!-- wire: ControlRequest lines -->"
            {
                inBlock = true
            } else if line == "```" {
                inBlock = false
            } else if inBlock {
                requests.append(String(line))
            }
        }
        return requests
    }
}
