import Foundation
import PiRelaySDK
import Testing

/// pi's stdout framing quirks (specs/pi-rpc.md §1b): multi-MB lines with raw U+2028/U+2029,
/// and text that is not JSON at all.
@Suite struct SessionOutputQuirkTests {
    @Test func multiMegabyteLinesWithRawLineSeparatorsArriveWhole() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "big")
            // One message_update of about 12 MB; its text holds raw U+2028 and U+2029, which a
            // reader splitting on Unicode line breaks would cut into unparseable pieces.
            try await s.prompt(id, "!scenario huge 12", timeout: .seconds(90))
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "stop")
            let text = try #require(try await s.last(id))
            #expect(text.hasPrefix("Here is the blob you asked for:\n"))
            #expect(text.hasSuffix("End of blob."))
            #expect(text.utf8.count > 3_000_000, "\(text.utf8.count) bytes")
            #expect(text.contains("separators:\u{2028}LS and\u{2029}PS end."))
            #expect(text.contains("naïve café 漢字 🚀"))
            let deltas = try await s.history(id, "--type", "text_delta")
            #expect(deltas.count == 3, "\(deltas.count) deltas")
            #expect(deltas.allSatisfy { ($0["delta"]?.stringValue?.count ?? .max) <= 200 }, "history keeps previews, not 12 MB")
            #expect(!s.home.daemonLog.contains("skipped a"), "no line of pi's was skipped")
        }
    }

    @Test func nonJSONLinesOnStdoutAreLoggedAndSkipped() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_MIGRATION_LINE": "1"])) { s in
            try await s.start()
            let id = try await s.new(name: "g")
            #expect(
                s.home.daemonLog.contains("session g: skipped a non-JSON line from pi's stdout: Migrated global commands/ → prompts/"),
                "\(s.home.daemonLog)")

            // Garbage in the middle of a streamed answer: the answer is still whole.
            try await s.prompt(id, "!scenario stdout-garbage Loading plugins... done")
            #expect(s.home.daemonLog.contains("session g: skipped a non-JSON line from pi's stdout: Loading plugins... done"))
            let text = try #require(try await s.last(id))
            let streamed = try await s.history(id, "--type", "text_delta").compactMap { $0["delta"]?.stringValue }.joined()
            #expect(!text.isEmpty && streamed == text, "every delta arrived around the garbage: \(streamed) vs \(text)")
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "stop")
        }
    }
}
