import Foundation
import PiRelaySDK
import Testing

/// Outbound media (seed 002) through the real daemon, attachments plugin and telegram plugin
/// against the fake Bot API: `/send-image` posts a workspace picture as a photo, `/send-file`
/// takes a caption, pictures an answer names are offered under `/images` with buttons, and all
/// of it passes the attachments path guard.
@Suite struct StackOutboundMediaTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func sendImageSendFileWithACaptionAndPicturesAnAnswerNames() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            let w = stack.workspace
            try FileManager.default.createDirectory(atPath: w + "/out", withIntermediateDirectories: true)
            try Data(E2ESamples.png).write(to: URL(fileURLWithPath: w + "/chart.png"))
            try Data(E2ESamples.png).write(to: URL(fileURLWithPath: w + "/out/result.png"))
            try Data(E2ESamples.png).write(to: URL(fileURLWithPath: stack.home.root + "/outside.png"))
            try "all green\n".write(toFile: w + "/report.txt", atomically: true, encoding: .utf8)
            try await stack.dm("/new \(w) media")
            try await stack.waitForBotMessage(in: chat, containing: "Started media")

            func photos() async throws -> Int { try await stack.botMessages(chat).filter { $0["photo"]?.arrayValue?.isEmpty == false }.count }

            try await stack.dm("/send-image chart.png")
            _ = try await waitFor("the picture as a photo") { try await photos() >= 1 ? true : nil }
            try await stack.dm("/send-file report.txt for the review")
            try await stack.waitForBotMessage(in: chat, containing: "for the review")
            _ = try await waitFor("report.txt as a document") {
                try await stack.botMessages(chat).first { $0["document"]?["file_name"] == "report.txt" }
            }

            // Refused with the reason: not an image; outside the session's folder (the guard).
            try await stack.dm("/send-image report.txt")
            try await stack.waitForBotMessage(in: chat, containing: "report.txt is no image")
            try await stack.dm("/send-image ../outside.png")
            try await stack.waitForBotMessage(in: chat, containing: "is outside the session's folder")
            #expect(try await photos() == 1)

            // An answer that names pictures: the ones that are there are offered under /images.
            try await stack.dm("Plotted to out/result.png (and out/missing.png, ../outside.png and https://example.com/x.png)")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: Plotted")
            try await stack.dm("/images")
            let list = try #require(try await stack.waitForBotMessage(in: chat, containing: "named in the answer").first)
            let shown = list["text"]?.stringValue ?? ""
            #expect(shown.contains("1. out/result.png (named in the answer)"), "\(shown)")
            #expect(!shown.contains("missing.png") && !shown.contains("example.com") && !shown.contains("outside"), "\(shown)")
            _ = try await stack.press("Send 1", on: list)
            _ = try await waitFor("the named picture as a photo") { try await photos() >= 2 ? true : nil }
            #expect(stack.piPrompts(containing: "send-image").isEmpty && stack.piPrompts(containing: "send-file").isEmpty)
        }
    }
}
