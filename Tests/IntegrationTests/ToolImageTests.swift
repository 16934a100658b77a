import Foundation
import PiRelaySDK
import Testing

/// Images a tool produced in the last run can be listed and sent on request, from the terminal
/// and from a chat.
@Suite struct ToolImageTests {
    @Test func imagesFromTheLastRunAreListedAndSent() async throws {
        try await E2EChatHome.with { chat in
            let stub = RepoPaths.root + "/Tests/Fakes/pi-screenshot/pi"
            let yaml = chat.config().yaml.replacingOccurrences(of: E2EConfig.fakePi, with: stub)
            try chat.home.writeConfig(yaml)
            let daemon = try await chat.home.startDaemon(environment: ["FAKE_MESSENGER_LOG": chat.messengerLog])
            for plugin in ["fake-messenger", "formatter", "attachments"] {
                try await daemon.waitForRunning(plugin, timeout: .seconds(60))
            }
            _ = try await chat.newBoundSession("shots")
            _ = try await chat.say("take a screenshot")
            _ = try await chat.waitForFinal(1)

            let listed = try await chat.run(["images", "shots", "--json"])
            let images = try #require(try listed.json().arrayValue)
            #expect(images.count == 1)
            #expect(images.first?["mimeType"] == "image/png")
            let path = try #require(images.first?["path"]?.stringValue)
            let png = try #require(FileManager.default.contents(atPath: path))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the base64 from pi is decoded to the real PNG")

            // From the chat: /images lists it with a button; the button posts it.
            let reply = try await chat.say("/images")
            let action = try #require(reply["reply"]?["actions"]?[0]?[0]?["id"]?.stringValue)
            #expect(action.hasPrefix("img:"))
            _ = try await chat.inject("chat.command", ["chat": E2EChatHome.chat(), "name": "action", "args": ["id": .string(action)]])
            _ = try await chat.run(["images", "shots", "--send", "1"])
            try await waitUntil("two file posts", timeout: .seconds(30)) { chat.posts("file").count >= 2 }
            for post in chat.posts("file") {
                let file = try #require(post["files"]?[0]?["path"]?.stringValue)
                #expect(post["files"]?[0]?["filename"] == "screenshot-1.png")
                #expect(FileManager.default.contents(atPath: file)?.starts(with: [0x89, 0x50]) == true, "a spool copy the messenger can upload")
            }

            // A new run forgets the previous run's images.
            _ = try await chat.say("another")
            _ = try await chat.waitForFinal(2)
            let again = try await chat.run(["images", "shots", "--json"])
            #expect(try again.json().arrayValue?.count == 1)
            let missing = try await chat.home.cli.run(["images", "shots", "--send", "2"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("no image 2"), "\(missing)")
        }
    }

    /// A tool's image over the chat's upload limit (the fake messenger's 8 MiB) is refused with
    /// the sizes, as `/file` refuses a file that big: no post the messenger would drop, and no
    /// copy left in the spool.
    @Test func anImageOverTheChatsUploadLimitIsRefusedWithWhy() async throws {
        try await E2EChatHome.with { chat in
            let stub = RepoPaths.root + "/Tests/Fakes/pi-screenshot/pi"
            let yaml = chat.config().yaml.replacingOccurrences(of: E2EConfig.fakePi, with: stub)
            try chat.home.writeConfig(yaml)
            let daemon = try await chat.home.startDaemon(
                environment: ["FAKE_MESSENGER_LOG": chat.messengerLog, "PI_SCREENSHOT_BYTES": "\(9 << 20)"])
            for plugin in ["fake-messenger", "formatter", "attachments"] {
                try await daemon.waitForRunning(plugin, timeout: .seconds(60))
            }
            _ = try await chat.newBoundSession("shots")
            _ = try await chat.say("take a screenshot")
            _ = try await chat.waitForFinal(1)
            let reply = try await chat.say("/image 1")
            let text = reply["reply"]?["text"]?.stringValue ?? ""
            #expect(text.contains("over this chat's upload limit of 8 MB"), "\(reply)")
            try await Task.sleep(for: .seconds(1))
            #expect(chat.posts("file").isEmpty, "\(chat.posts("file"))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: chat.home.path + "/state/spool").isEmpty)
        }
    }
}
