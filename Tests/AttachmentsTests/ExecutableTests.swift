import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built pi-relay-attachments the way pi-relayd does: handshake, one request, EOF.
@Suite("The built executable", .serialized)
struct ExecutableTests {
    /// SwiftPM puts products next to the test bundle (.build-att/debug/).
    var executable: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (me as NSString).deletingLastPathComponent + "/pi-relay-attachments"
    }

    var environment: [String] {
        var env = ["PI_RELAY_PLUGIN=1", "PI_RELAY_PROTOCOL=1", "PATH=/usr/bin:/bin"]
        if let libraries = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] { env.append("LD_LIBRARY_PATH=" + libraries) }
        return env
    }

    @Test(.timeLimit(.minutes(1)))
    func handshakeAndAnInboundRequest() async throws {
        let home = TemporaryFolder()
        let server = TestServer.shared
        let png = server.serve(.body(Samples.png, contentType: "image/png"), name: "shot.png")
        let gone = server.serve(.status(404), name: "gone.pdf")

        let child = try ChildProcess(path: executable, environment: environment, stderrPath: home.path + "/stderr.log")
        let writer = FDWriter(fd: child.input)
        var lines = FDLineReader.lines(fd: child.output).makeAsyncIterator()

        let hello = try JSONValue.parse(bytes: try #require(await nextLine(&lines)))
        #expect(hello["type"] == "hello")
        #expect(hello["protocol"] == 1)
        #expect(hello["name"] == "attachments")
        #expect(hello["roles"] == ["attachments"])

        let welcome: JSONValue = [
            "type": "welcome", "protocol": 1, "plugin": "attachments", "config": ["timeoutSeconds": 5],
            "stateDir": .string(home.path + "/state"), "spoolDir": .string(home.path + "/spool"),
            "home": .string(home.path), "sessions": [], "bindings": [],
        ]
        let request: JSONValue = [
            "type": "request", "id": "r1", "method": "attachments.inbound", "deadlineMs": 20000,
            "params": [
                "sessionId": "s1",
                "items": [
                    ["url": .string(png), "filename": "shot.png", "contentType": "image/png"],
                    ["url": .string(gone), "filename": "gone.pdf"],
                ],
            ],
        ]
        writer.send(welcome.serializedBytes() + [0x0A])
        writer.send(request.serializedBytes() + [0x0A])

        let response = try JSONValue.parse(bytes: try #require(await nextLine(&lines)))
        #expect(response["type"] == "response")
        #expect(response["id"] == "r1")
        let result = try #require(response["result"])
        #expect(result["images"] == [["type": "image", "mimeType": "image/png", "data": .string(Data(Samples.png).base64EncodedString())]])
        #expect(
            result["appendix"] == """
                [attachment shot.png: attached as an image (PNG, 69 bytes)]

                [attachment gone.pdf: not included: download failed: HTTP 404]
                """)
        #expect(result["notes"] == ["gone.pdf was not included: download failed: HTTP 404"])

        // End of input is the supervisor going away: the plugin exits 0.
        writer.finish()
        writer.flush()
        close(child.input)
        #expect(await child.exitStatus() == 0)
        close(child.output)
        let log = (try? String(contentsOfFile: home.path + "/stderr.log", encoding: .utf8)) ?? ""
        #expect(!log.contains(png), "links are not logged")
    }

    @Test(.timeLimit(.minutes(1)))
    func startedByHandItExplainsItselfAndExits64() async throws {
        let home = TemporaryFolder()
        let child = try ChildProcess(path: executable, environment: ["PATH=/usr/bin:/bin"], stderrPath: home.path + "/stderr.log")
        close(child.input)
        #expect(await child.exitStatus() == 64)
        close(child.output)
        let text = try String(contentsOfFile: home.path + "/stderr.log", encoding: .utf8)
        #expect(text.contains("This is a pi-relayd plugin (roles: attachments)"))
    }

    private func nextLine(_ lines: inout AsyncStream<LineFramer.Event>.Iterator) async -> [UInt8]? {
        while let event = await lines.next() {
            if case .line(let bytes) = event { return bytes }
        }
        return nil
    }
}
