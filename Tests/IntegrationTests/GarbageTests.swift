import Foundation
import PiRelaySDK
import Testing

/// Junk on a plugin's stdout is skipped and logged; the plugin keeps running.
@Suite struct GarbageTests {
    @Test func junkLinesAreSkippedAndThePluginStillAnswers() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-garbage")
            let daemon = try await home.startDaemon()
            let first = try await daemon.waitForRunning("fake-garbage")
            try await waitUntil("the fake has written its junk", timeout: .seconds(30)) {
                home.pluginLog("fake-garbage").contains("junk done")
            }

            let call = try await home.run("plugin", "call", "fake-garbage", "echo", #"{"after":"junk"}"#)
            #expect(call.status == 0, "\(call)")
            #expect(try call.json() == ["echo": ["after": "junk"]], "\(call)")

            let info = try #require(try await daemon.plugins()["fake-garbage"])
            #expect(info.state == "running")
            #expect(info.pid == first.pid)
            #expect(info.restarts == 0)

            let lines = home.daemonLog.split(separator: "\n").filter { $0.contains("plugin fake-garbage:") }
            let malformed = lines.filter { $0.contains("skipped a malformed line") }
            // Nine malformed lines (Tests/Fakes/plugins/README.md), each logged.
            #expect(malformed.count == 9, "\(malformed.joined(separator: "\n"))")
            #expect(malformed.contains { $0.contains("this is not json") })
            #expect(malformed.contains { $0.contains("[1,2,3]") })
            #expect(
                lines.contains { $0.contains("skipped a 10485760-byte line from stdout (over the 8388608-byte cap)") },
                "\(lines.joined(separator: "\n"))")
            #expect(lines.contains { $0.contains("unknown type frobnicate") })
            // The two well-formed notifications (raw U+2028, CR LF) were framed correctly.
            for method in ["fake.garbage.u2028", "fake.garbage.crlf"] {
                #expect(!lines.contains { $0.contains(method) }, "\(method) was not framed right")
            }
        }
    }
}
