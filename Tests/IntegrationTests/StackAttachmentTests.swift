import Foundation
import PiRelaySDK
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 6 point 11, files both ways through Discord (points 2 and 6): what a user attaches in
/// Discord reaches pi through the attachments plugin, and an answer too long for the chat is
/// uploaded as a file (a multipart create the fake validates).
@Suite struct StackAttachmentTests {
    /// A DM with a picture and a text file: the discord plugin passes their CDN links on, the
    /// attachments plugin downloads them from the fake's CDN, and pi's prompt carries the picture
    /// as image content with its exact bytes and the text file inlined; pi answers in the DM.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func attachmentsInADMReachPi() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "att"])
            let png = Data(E2ESamples.png).base64EncodedString()
            let posted = try await stack.fake.post(
                "/messages",
                [
                    "user_id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name), "dm": true, "content": "look at these",
                    "attachments": [
                        ["filename": "shot.png", "content_type": "image/png", "data_b64": .string(png)],
                        ["filename": "log.txt", "content_type": "text/plain", "text": "the build log says: all green\n"],
                    ],
                ])
            #expect(posted["delivered_to"]?.arrayValue?.isEmpty == false, "\(posted)")

            let prompt = try await stack.waitForPiPrompt(containing: "look at these")
            let images = prompt["images"]?.arrayValue ?? []
            #expect(images.count == 1 && images.first?["mimeType"] == "image/png", "\(images.map { $0["mimeType"] ?? nil })")
            #expect(images.first?["data"]?.stringValue == png, "the picture arrived changed")
            let message = prompt["message"]?.stringValue ?? ""
            #expect(message.hasPrefix("look at these"), "\(message.prefix(200))")
            #expect(message.contains("[attachment shot.png: attached as an image"), "\(message)")
            #expect(message.contains("[attachment log.txt]") && message.contains("the build log says: all green"), "\(message)")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: look at these")
        }
    }

    /// A file sent while pi's input question waits is a prompt, with the file: taken as the
    /// question's answer (its empty caption), the file was dropped without a word.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aFileSentWhileAQuestionWaitsIsAPromptNotAnAnswer() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "asks"])
            try await stack.dm("!scenario ui input")
            try await stack.waitForBotMessage(in: dm, containing: "Reply with your answer")
            try await stack.fake.post(
                "/messages",
                [
                    "user_id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name), "dm": true, "content": "",
                    "attachments": [["filename": "notes.txt", "content_type": "text/plain", "text": "what the file says\n"]],
                ])
            let prompt = try await stack.waitForPiPrompt(containing: "what the file says")
            #expect(prompt["message"]?.stringValue?.contains("[attachment notes.txt]") == true, "\(prompt)")
            #expect(stack.piInput("extension_ui_response").isEmpty, "the question was not answered: \(stack.piInput("extension_ui_response"))")
        }
    }

    /// An answer longer than four messages: the final is a preview pointing at a `.md` file
    /// uploaded with it; the file, downloaded from the fake's CDN, holds the whole answer.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongAnswerIsUploadedAsAFile() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "long"])
            try await stack.dm("!scenario text 1500")
            // Not the state: the new session is idle before the prompt's run starts as after it ends.
            let answer = try await waitFor("the long answer", timeout: .seconds(120)) { () -> String? in
                try await stack.json("last", "long")["text"]?.stringValue
            }
            try await stack.waitForBotMessage(in: dm, containing: "📎 The full answer")

            let withFile = try await waitFor("the .md file is in the DM", timeout: .seconds(60)) { () -> JSONValue? in
                try await stack.botMessages(dm).flatMap { $0["attachments"]?.arrayValue ?? [] }
                    .first { $0["filename"]?.stringValue?.hasSuffix(".md") == true }
            }
            let url = try #require(withFile["url"]?.stringValue.flatMap(URL.init(string:)), "\(withFile)")
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let file = String(decoding: data, as: UTF8.self)
            let words = StackPromptTests.words(answer).joined(separator: " ")
            #expect(StackPromptTests.words(file).joined(separator: " ").contains(words), "the file holds the whole answer: \(file.prefix(300))")
            let uploads = try await stack.fake.get("/requests?method=POST&path=/channels/\(dm)/messages")["requests"]?.arrayValue ?? []
            #expect(uploads.contains { $0["request_body"]?["_multipart"] != nil }, "the file went up as multipart/form-data")
        }
    }
}
