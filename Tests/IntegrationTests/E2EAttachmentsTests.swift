import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 5 end to end: attachments from a chat or the terminal reach pi as image content, inlined
/// text or a clear line; workspace files reach the chat only through the path guard.
@Suite struct E2EAttachmentsTests {
    static let text99 = E2ESamples.text(bytes: 99 * 1024, marker: "END OF THE 99 KB FILE")
    static let text100 = E2ESamples.text(bytes: 100 * 1024, marker: "END OF THE 100 KB FILE")
    static let text101 = E2ESamples.text(bytes: 101 * 1024, marker: "END OF THE 101 KB FILE")
    static let images: [(name: String, bytes: [UInt8], mime: String)] = [
        ("shot.png", E2ESamples.png, "image/png"), ("photo.jpg", E2ESamples.jpeg, "image/jpeg"),
        ("anim.gif", E2ESamples.gif, "image/gif"), ("pic.webp", E2ESamples.webp, "image/webp"),
    ]
    /// Quick enough for a stalled download to fail within the test, slow enough for a loaded machine.
    static let liar = Array("<html><body>Sign in to view this image</body></html>\n".utf8)
    static let timeoutSeconds = 3
    static let downloadLimit = 256 * 1024
    static let attachmentsConfig = ["timeoutSeconds: \(timeoutSeconds)", "downloadMaxBytes: \(downloadLimit)"]

    static func server() throws -> E2EHTTPServer {
        var routes: [String: E2EHTTPRoute] = [:]
        for image in images { routes["/" + image.name] = .file(body: image.bytes, contentType: image.mime) }
        routes["/t99.txt"] = .file(body: text99, contentType: "text/plain")
        routes["/t100.txt"] = .file(body: text100, contentType: "text/plain")
        routes["/t101.txt"] = .file(body: text101, contentType: "text/plain")
        // A picture served as text: what counts is the bytes.
        routes["/disguised.txt"] = .file(body: E2ESamples.png, contentType: "text/plain")
        routes["/blob.bin"] = .file(body: E2ESamples.binary, contentType: "application/octet-stream")
        routes["/stall.txt"] = .stall(declaredLength: 5000)
        routes["/huge.bin"] = .file(body: [UInt8](repeating: 0x41, count: downloadLimit + 50_000), contentType: "application/octet-stream")
        routes["/liar.png"] = .file(body: liar, contentType: "image/png")
        routes["/cut.txt"] = .drop(body: Array("the first part only\n".utf8), declaredLength: 20_000)
        return try E2EHTTPServer(routes: routes)
    }

    static func item(_ server: E2EHTTPServer, _ name: String, type: String? = nil) -> JSONValue {
        var item: JSONValue = ["url": .string(server.url("/" + name)), "filename": .string(name)]
        if let type { item["contentType"] = .string(type) }
        return item
    }

    static func message(_ prompt: JSONValue) -> String { prompt["message"]?.stringValue ?? "" }

    /// The file's whole text in a fenced block under its name (the fence may carry a language).
    static func inlined(_ name: String, _ bytes: [UInt8], in message: String) -> Bool {
        guard let head = message.range(of: "[attachment \(name)]\n```") else { return false }
        let rest = message[head.upperBound...]
        guard let lineEnd = rest.firstIndex(of: "\n") else { return false }
        return rest[rest.index(after: lineEnd)...].hasPrefix(String(decoding: bytes, as: UTF8.self) + "```")
    }

    @Test func inboundAttachmentsFromTheChatAndTheTerminalReachPi() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await E2EChatHome.with { chat in
            _ = try await chat.start(chat.config(attachments: Self.attachmentsConfig))
            _ = try await chat.newBoundSession("files")

            // Images: each becomes image content with its type and exact bytes.
            let pictures = try await chat.say("!scenario text 3", attachments: Self.images.map { Self.item(server, $0.name, type: $0.mime) })
            #expect(pictures["status"] == "prompted", "\(pictures)")
            let first = try await chat.waitForPrompts(1)[0]
            let sent = first["images"]?.arrayValue ?? []
            #expect(sent.map { $0["mimeType"]?.stringValue ?? "" } == Self.images.map(\.mime), "\(sent.map { $0["mimeType"] })")
            for (image, content) in zip(Self.images, sent) {
                #expect(content["type"] == "image")
                #expect(content["data"]?.stringValue == Data(image.bytes).base64EncodedString(), "\(image.name) arrived changed")
            }
            #expect(
                Self.message(first).hasPrefix("!scenario text 3\n"), "the user's text stays on its own first line: \(Self.message(first).prefix(120))"
            )
            for image in Self.images {
                #expect(Self.message(first).contains("[attachment \(image.name): attached as an image"), "\(Self.message(first))")
            }

            // Text: inlined below 100 KB, named with size and reason from 100 KB on; binary named.
            let texts = try await chat.say(
                "!scenario text 3", attachments: ["t99.txt", "t100.txt", "t101.txt", "blob.bin", "disguised.txt"].map { Self.item(server, $0) })
            let secondPrompt = try await chat.waitForPrompts(2)[1]
            let second = Self.message(secondPrompt)
            #expect(secondPrompt["images"]?.arrayValue?.map { $0["mimeType"] } == ["image/png"], "\(secondPrompt["images"] ?? nil)")
            #expect(second.contains("[attachment disguised.txt: attached as an image (PNG"), "\(second.suffix(800))")
            #expect(Self.inlined("t99.txt", Self.text99, in: second), "the 99 KB file is inlined whole in a fence")
            #expect(second.contains("[attachment t100.txt (100 KB): not included: over 100 KB]"), "\(second.suffix(600))")
            #expect(second.contains("[attachment t101.txt (101 KB): not included: over 100 KB]"), "\(second.suffix(600))")
            #expect(second.contains("[attachment blob.bin (4 KB): not included: binary"), "\(second.suffix(600))")
            #expect(!second.contains("END OF THE 100 KB FILE") && !second.contains("END OF THE 101 KB FILE"))
            let textNotes = texts["reply"]?["text"]?.stringValue ?? ""
            #expect(["t100.txt", "t101.txt", "blob.bin"].allSatisfy { textNotes.contains($0) }, "\(texts)")
            #expect(!textNotes.contains("t99.txt") && !textNotes.contains("disguised.txt"), "\(texts)")

            // Failures: each gets a clear line, and the prompt still goes to pi.
            let broken = try await chat.say(
                "!scenario text 3",
                attachments: [
                    Self.item(server, "missing.png", type: "image/png"), Self.item(server, "stall.txt"), Self.item(server, "huge.bin"),
                    Self.item(server, "liar.png", type: "image/png"), Self.item(server, "cut.txt"),
                ])
            #expect(broken["status"] == "prompted", "\(broken)")
            let third = try await chat.waitForPrompts(3)[2]
            let lines = Self.message(third)
            #expect(lines.hasPrefix("!scenario text 3\n"))
            #expect(third["images"] == nil, "nothing broken is sent as an image: \(third)")
            for expected in [
                "[attachment missing.png: not included: download failed: HTTP 404]",
                "[attachment stall.txt: not included: download failed: no complete answer within \(Self.timeoutSeconds) s]",
                "[attachment huge.bin: not included: download failed: larger than the 256 KB download limit]",
                "[attachment liar.png (\(Self.liar.count) bytes): not included: declared as image/png but the content is not an image]",
                "[attachment cut.txt: not included: download failed: the connection closed before the whole file arrived]",
            ] {
                #expect(lines.contains(expected), "missing \(expected) in:\n\(lines)")
            }
            let notes = broken["reply"]?["text"]?.stringValue ?? ""
            #expect(["missing.png", "stall.txt", "huge.bin", "liar.png", "cut.txt"].allSatisfy { notes.contains($0) }, "\(broken)")

            // From the terminal: URLs and local paths, through the same plugin.
            let local99 = chat.home.scratch + "/local99.txt"
            let local101 = chat.home.scratch + "/local101.txt"
            try chat.writeFile(local99, Self.text99)
            try chat.writeFile(local101, Self.text101)
            let terminal = try await chat.run([
                "send", "files", "!scenario text 3", "--attach", server.url("/anim.gif"),
                "--attach", local99, "--attach", local101, "--attach", server.url("/missing.png"),
            ])
            // Queued as a follow-up if pi is still answering the last message: a prompt all the same.
            #expect(terminal.stdout.hasPrefix("prompted\n") || terminal.stdout.hasPrefix("queued\n"), "\(terminal)")
            #expect(terminal.stdout.contains("local101.txt was not included: over 100 KB"), "\(terminal)")
            #expect(terminal.stdout.contains("missing.png was not included: download failed: HTTP 404"), "\(terminal)")
            let fourth = try await chat.waitForPrompts(4)[3]
            let fromTerminal = Self.message(fourth)
            #expect(fourth["images"]?.arrayValue?.map { $0["mimeType"] } == ["image/gif"], "\(fourth["images"] ?? nil)")
            #expect(fourth["images"]?[0]?["data"]?.stringValue == Data(E2ESamples.gif).base64EncodedString())
            #expect(fromTerminal.hasPrefix("!scenario text 3\n"))
            #expect(Self.inlined("local99.txt", Self.text99, in: fromTerminal))
            #expect(fromTerminal.contains("[attachment local101.txt (101 KB): not included: over 100 KB]"))
            #expect(fromTerminal.contains("[attachment missing.png: not included: download failed: HTTP 404]"))
            #expect(FileManager.default.fileExists(atPath: local99), "the user's own file is left alone")
            // The chat sees the terminal's prompt as an echo naming the files, not pasting them.
            let echo = try await waitFor("the terminal's prompt is echoed to the chat") { () -> String? in
                chat.posts("echo").first?["text"]?.stringValue
            }
            // The prompt as sent: the messenger shows it as an echo in its own way ("▶ USER: ...").
            #expect(echo.hasPrefix("!scenario text 3\n"), "\(echo)")
            #expect(["anim.gif", "local99.txt", "local101.txt", "missing.png"].allSatisfy { echo.contains($0) }, "\(echo)")
            #expect(!echo.contains("END OF THE 99 KB FILE") && echo.utf16.count < 2000, "\(echo.utf16.count) units: \(echo.prefix(300))")
            #expect(chat.piCommands("prompt").count == 4)
        }
    }

    /// Three large pictures: together more than one protocol line may carry (8 MiB), so the plugin
    /// sends what fits and names the rest, rather than an answer the supervisor would drop.
    @Test func picturesTooBigForOneMessageAreNamedNotLost() async throws {
        let big = E2ESamples.png + [UInt8](repeating: 0x55, count: 3_400_000)
        let names = ["one.png", "two.png", "three.png"]
        let server = try E2EHTTPServer(
            routes: Dictionary(uniqueKeysWithValues: names.map { ("/" + $0, E2EHTTPRoute.file(body: big, contentType: "image/png")) }))
        defer { server.stop() }
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("pics")
            let started = ContinuousClock.now
            let reply = try await chat.say("!scenario text 3", attachments: names.map { Self.item(server, $0) })
            #expect(ContinuousClock.now - started < .seconds(60), "answered, not timed out")
            #expect(reply["status"] == "prompted", "\(reply)")
            let prompt = try await chat.waitForPrompts(1)[0]
            let images = prompt["images"]?.arrayValue ?? []
            #expect((1..<3).contains(images.count), "\(images.count) images sent")
            #expect(images.allSatisfy { $0["data"]?.stringValue == Data(big).base64EncodedString() })
            let text = Self.message(prompt)
            let left = names.filter {
                text.contains("[attachment \($0) (3.2 MB): image not sent: too much image data for one message; send it on its own]")
            }
            #expect(left.count + images.count == 3, "each picture sent or named:\n\(text)")
            #expect(left.allSatisfy { (reply["reply"]?["text"]?.stringValue ?? "").contains($0) }, "\(reply)")
        }
    }

    @Test func killingAttachmentsMidDownloadLosesNoPrompt() async throws {
        let body = E2ESamples.text(bytes: 3000, marker: "END OF THE SLOW FILE")
        let server = try E2EHTTPServer(routes: ["/slow.txt": .slow(body: body, contentType: "text/plain", duration: .seconds(3))])
        defer { server.stop() }
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start(chat.config(attachments: ["timeoutSeconds: 60"]))
            _ = try await chat.newBoundSession("slow")
            let first = try #require(try await daemon.plugins()["attachments"]?.pid)

            async let answer = chat.say("!scenario text 3", attachments: [Self.item(server, "slow.txt")])
            try await waitUntil("the plugin is downloading", timeout: .seconds(60)) { server.hitCount("/slow.txt") >= 1 }
            kill(first, SIGKILL)
            let second = try await daemon.waitForPlugin("attachments", "is running again") {
                $0.state == "running" && $0.pid != nil && $0.pid != first
            }
            #expect(second.restarts == 1, "\(second)")

            let reply = try await answer
            #expect(reply["status"] == "prompted", "\(reply)")
            #expect(reply["reply"] == nil, "nothing was left out: \(reply)")
            #expect(server.hitCount("/slow.txt") == 2, "downloaded again by the restarted plugin")
            _ = try await chat.waitForFinal(1)
            let prompts = chat.piCommands("prompt")
            #expect(prompts.count == 1, "the prompt reaches pi once: \(prompts.map(Self.message))")
            #expect(Self.inlined("slow.txt", body, in: prompts.first.map(Self.message) ?? ""))
        }
    }

    /// Protocol §8: files handed over by path are removed by whoever receives them. A prompt's
    /// are read (and removed) by the attachments plugin; a file whose message prompted nothing
    /// (to a chat bound to no session, with a command as its caption, to a paused chat) was left
    /// in the spool for good, where nothing else removes it.
    @Test func filesNoPromptTookLeaveNothingInTheSpool() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            let spool = chat.home.path + "/state/spool/"
            var names: [String] = []
            func spooled(_ name: String) throws -> JSONValue {
                try chat.writeFile(spool + name, Array("for nobody\n".utf8))
                names.append(name)
                return ["path": .string(spool + name), "filename": .string(name)]
            }
            let unbound = try await chat.say("look", attachments: [try spooled("fake-1-unbound.txt")])
            #expect(unbound["status"] == "unbound", "\(unbound)")
            _ = try await chat.newBoundSession("spool")
            let command = try await chat.say("/sessions", attachments: [try spooled("fake-2-command.txt")])
            #expect(command["status"] == "command", "\(command)")
            _ = try await chat.say("/pause")
            let paused = try await chat.say("look", attachments: [try spooled("fake-3-paused.txt")])
            #expect(paused["status"] == "paused", "\(paused)")
            for name in names { #expect(!FileManager.default.fileExists(atPath: spool + name), "\(name) left in the spool") }
            // Outside the spool, a path is the user's own file (the terminal's --attach): kept.
            let own = chat.workspace + "/mine.txt"
            try chat.writeFile(own, Array("mine\n".utf8))
            _ = try await chat.say("/sessions", attachments: [["path": .string(own), "filename": "mine.txt"]])
            #expect(FileManager.default.fileExists(atPath: own))
        }
    }

    /// A file for a chat whose messenger's outbox is full is not sent (the delivery is dropped,
    /// and `status` says so): its spool copy, made for that post alone, goes too (protocol §8).
    /// Each one stayed in the spool for good.
    @Test func aFileThatCouldNotBeQueuedLeavesNoSpoolCopy() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.plugins.outboxLimit = 2
            let daemon = try await chat.start(config)
            _ = try await chat.newBoundSession("ws")
            try chat.writeFile(chat.workspace + "/report.txt", Array("contents\n".utf8))
            let messenger = try #require(try await daemon.plugins()["fake-messenger"]?.pid)
            kill(messenger, SIGSTOP)
            defer { kill(messenger, SIGCONT) }
            for _ in 0..<5 { _ = try await chat.run(["file", "ws", "report.txt"]) }
            let copies = try FileManager.default.contentsOfDirectory(atPath: chat.home.path + "/state/spool").filter { $0.hasSuffix("report.txt") }
            #expect(copies.count <= 2, "\(copies)")
        }
    }

    @Test func outboundFilesPassThePathGuardOrAreRefusedClearly() async throws {
        try await E2EChatHome.with { chat in
            let w = chat.workspace
            let outside = chat.home.root + "/outside.txt"
            try chat.writeFile(outside, Array("not the session's\n".utf8))
            for path in [
                "report.txt", "sub/notes.md", ".env", ".ENV", ".ssh/config", ".SSH/config", "id_rsa", "ID_RSA",
                "server.pem", "Server.PEM", ".git/config", ".GIT/config", "sub/.env.local",
            ] {
                try chat.writeFile(w + "/" + path, Array("contents of \(path)\n".utf8))
            }
            // Larger than the fake messenger's 8 MiB upload limit; sparse, so it costs no disk.
            guard FileManager.default.createFile(atPath: w + "/big.log", contents: nil), truncate(w + "/big.log", 9 << 20) == 0 else {
                throw E2EFailure("cannot make big.log")
            }
            try FileManager.default.createSymbolicLink(atPath: w + "/escape.txt", withDestinationPath: outside)
            try FileManager.default.createSymbolicLink(atPath: w + "/sub/up", withDestinationPath: chat.home.root)
            try FileManager.default.createSymbolicLink(atPath: w + "/innocent.txt", withDestinationPath: w + "/.env")

            _ = try await chat.start()
            _ = try await chat.newBoundSession("ws")

            // Allowed: from the terminal and with the chat command.
            let sent = try await chat.run(["file", "ws", "report.txt"])
            #expect(sent.stdout.contains("sent report.txt to 1 chat(s)"), "\(sent)")
            let command = try await chat.say("/file sub/notes.md")
            #expect(command["status"] == "command" && command["reply"]?["text"] == "Sending notes.md.", "\(command)")
            let absolute = try await chat.run(["file", "ws", w + "/sub/notes.md"])
            #expect(absolute.stdout.contains("sent notes.md"), "\(absolute)")
            let files = try await waitFor("three files reach the chat") { () -> [JSONValue]? in
                let posts = chat.posts("file")
                return posts.count >= 3 ? posts : nil
            }
            let spool = chat.home.path + "/state/spool/"
            for (post, name) in zip(files, ["report.txt", "notes.md", "notes.md"]) {
                let file = post["files"]?[0]
                #expect(post["target"] == ["channel": .string(E2EChatHome.channel)], "\(post)")
                #expect(file?["filename"]?.stringValue == name, "\(post)")
                let path = file?["path"]?.stringValue ?? ""
                #expect(path.hasPrefix(spool), "a spool copy, not the workspace file: \(path)")
                #expect(
                    FileManager.default.contents(atPath: path)
                        == FileManager.default.contents(atPath: w + "/" + (name == "notes.md" ? "sub/notes.md" : name)))
            }

            // Refused, each with its reason.
            let refusals: [(path: String, reason: String)] = [
                ("../outside.txt", "is outside the session's folder"),
                ("sub/../../outside.txt", "is outside the session's folder"),
                (outside, "is outside the session's folder"),
                ("/etc/passwd", "is outside the session's folder"),
                ("escape.txt", "leads outside the session's folder"),
                ("sub/up/outside.txt", "leads outside the session's folder"),
                ("innocent.txt", "looks like an environment file"),
                (".env", "looks like an environment file"),
                ("sub/../.env", "looks like an environment file"),
                ("sub/.env.local", "looks like an environment file"),
                (".ssh/config", "SSH keys"),
                ("id_rsa", "looks like an SSH private key"),
                ("server.pem", "looks like a key or certificate file"),
                (".git/config", "repository internals"),
                (".ENV", "looks like an environment file"),
                (".SSH/config", "SSH keys"),
                ("ID_RSA", "looks like an SSH private key"),
                ("Server.PEM", "looks like a key or certificate file"),
                (".GIT/config", "repository internals"),
                (w + "/.env", "looks like an environment file"),
                ("big.log", "is 9 MB, over this chat's upload limit of 8 MB"),
            ]
            for (path, reason) in refusals {
                let r = try await chat.home.cli.run(["file", "ws", path])
                #expect(r.status == 1, "pi-relayd file ws \(path) was not refused: \(r)")
                #expect(r.stderr.contains(reason), "pi-relayd file ws \(path): \(r.stderr)")
            }
            for (path, reason) in refusals.prefix(8) + refusals.suffix(6) {
                let r = try await chat.say("/file \(path)")
                let text = r["reply"]?["text"]?.stringValue ?? ""
                #expect(text.contains(reason) && !text.hasPrefix("Sending"), "/file \(path): \(r)")
            }
            #expect(chat.posts("file").count == 3, "no refused file reached the chat: \(chat.posts("file"))")
            let received = (try? String(contentsOfFile: chat.messengerLog, encoding: .utf8)) ?? ""
            #expect(!received.contains("contents of .env") && !received.contains("not the session's"))
        }
    }
}
