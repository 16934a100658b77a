import Foundation
import PiRelayHTTP
import PiRelaySDK
import Testing

@testable import AttachmentsPlugin

@Suite("attachments.inbound against a local HTTP server")
struct InboundTests {
    let server = TestServer.shared

    func inbound(
        _ tweak: (inout AttachmentsConfig) -> Void = { _ in }, proxy: ProxySetting = .direct,
        spoolDir: String? = nil
    ) -> Inbound {
        var config = AttachmentsConfig()
        config.timeoutSeconds = 5
        tweak(&config)
        return Inbound(config: config, proxy: proxy, loop: .shared, spoolDir: spoolDir)
    }

    func item(_ url: String, _ name: String, type: String? = nil, size: Int? = nil) -> InboundItem {
        InboundItem(source: .url(url), name: name, declaredSize: size, declaredType: type)
    }

    @Test(
        "each sendable image type is sent, whatever the server calls it",
        arguments: [
            (Samples.png, "image/png"), (Samples.jpeg, "image/jpeg"), (Samples.gif, "image/gif"), (Samples.webp, "image/webp"),
        ])
    func imagesBySignature(bytes: [UInt8], mimeType: String) async {
        let url = server.serve(.body(bytes, contentType: "application/octet-stream"), name: "upload.bin")
        let result = await inbound().run(InboundRequest(items: [item(url, "upload.bin")]))
        #expect(result.images == [["type": "image", "data": .string(Data(bytes).base64EncodedString()), "mimeType": .string(mimeType)]])
        #expect(result.notes.isEmpty)
        #expect(result.appendix.hasPrefix("[attachment upload.bin: attached as an image ("))
    }

    @Test func anImageWithAMisleadingNameAndTypeIsStillSent() async {
        let url = server.serve(.body(Samples.png, contentType: "text/plain"), name: "notes.txt")
        let result = await inbound().run(InboundRequest(items: [item(url, "notes.txt", type: "text/plain")]))
        #expect(result.images.first?["mimeType"] == "image/png")
        #expect(!result.appendix.contains("```"))
    }

    @Test func textDeclaredAsAnImageIsNotPastedIntoThePrompt() async {
        let page = Array("<html><body>Access denied</body></html>\n".utf8)
        let url = server.serve(.body(page, contentType: "image/png"), name: "photo.png")
        let result = await inbound().run(InboundRequest(items: [item(url, "photo.png", type: "image/png")]))
        #expect(result.images.isEmpty)
        #expect(result.appendix == "[attachment photo.png (40 bytes): not included: declared as image/png but the content is not an image]")
        #expect(result.notes == ["photo.png was not included: declared as image/png but the content is not an image"])
    }

    @Test(
        "other image formats are named, not sent",
        arguments: [
            (Samples.bmp, "BMP"), (Samples.tiff, "TIFF"), (Samples.heic, "HEIC/HEIF"), (Samples.svg, "SVG"),
        ])
    func otherImageFormats(bytes: [UInt8], format: String) async {
        let url = server.serve(.body(bytes, contentType: "image/x-anything"), name: "picture")
        let result = await inbound().run(InboundRequest(items: [item(url, "picture")]))
        #expect(result.images.isEmpty)
        let reason = "\(format) image; only PNG, JPEG, GIF and WebP images can be sent to the model"
        #expect(result.appendix == "[attachment picture (\(ByteCount.describe(bytes.count))): not included: \(reason)]")
        #expect(result.notes == ["picture was not included: \(reason)"])
    }

    @Test("text is inlined strictly below the limit", arguments: [(99, true), (100, false), (101, false)])
    func textAroundTheLimit(kilobytes: Int, inlined: Bool) async {
        let bytes = Samples.text(bytes: kilobytes * 1024)
        let url = server.serve(.body(bytes, contentType: "text/plain"), name: "big.swift")
        let result = await inbound().run(InboundRequest(items: [item(url, "big.swift")]))
        if inlined {
            #expect(result.appendix == "[attachment big.swift]\n```swift\n\(String(decoding: bytes, as: UTF8.self))\n```")
            #expect(result.notes.isEmpty)
        } else {
            #expect(result.appendix == "[attachment big.swift (\(kilobytes) KB): not included: over 100 KB]")
            #expect(result.notes == ["big.swift was not included: over 100 KB"])
        }
    }

    @Test func theTextLimitComesFromConfig() async {
        let url = server.serve(.body(Samples.text(bytes: 600), contentType: "text/plain"), name: "a.txt")
        let result = await inbound { $0.textInlineMaxBytes = 512 }.run(InboundRequest(items: [item(url, "a.txt")]))
        #expect(result.appendix == "[attachment a.txt (600 bytes): not included: over 512 bytes]")
    }

    @Test func aFileWithNulBytesIsNamedAsBinary() async {
        let url = server.serve(.body([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00], contentType: "text/plain"), name: "tool")
        let result = await inbound().run(InboundRequest(items: [item(url, "tool.txt")]))
        #expect(result.appendix == "[attachment tool.txt (8 bytes): not included: binary]")
        #expect(result.notes == ["tool.txt was not included: binary"])
    }

    @Test func latin1TextIsInlined() async {
        let url = server.serve(.body(Array("caf".utf8) + [0xE9, 0x0A], contentType: "text/plain"), name: "latin1.txt")
        let result = await inbound().run(InboundRequest(items: [item(url, "latin1.txt")]))
        #expect(result.appendix.contains("café"), "\(result.appendix)")
    }

    @Test func http404() async {
        let result = await inbound().run(InboundRequest(items: [item(server.serve(.status(404)), "report.pdf")]))
        #expect(result.appendix == "[attachment report.pdf: not included: download failed: HTTP 404]")
        #expect(result.notes == ["report.pdf was not included: download failed: HTTP 404"])
        #expect(result.images.isEmpty)
    }

    @Test func aStalledResponseTimesOut() async {
        let started = ContinuousClock.now
        let result = await inbound { $0.timeoutSeconds = 0.5 }.run(InboundRequest(items: [item(server.serve(.stall), "slow.png")]))
        #expect(result.appendix == "[attachment slow.png: not included: download failed: no complete answer within 0.5 s]")
        // The default timeout is a minute: generous for a loaded machine, still far from it.
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func theRequestDeadlineShortensTheTimeout() async {
        let started = ContinuousClock.now
        let result = await inbound { $0.timeoutSeconds = 60 }
            .run(InboundRequest(items: [item(server.serve(.stall), "slow.png")]), deadline: .now + .seconds(1))
        #expect(result.appendix.contains("download failed: no complete answer within"))
        // Ignoring the deadline would wait out the stalled answer (the server hangs up at 30 s).
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test func anEndlessBodyIsCutOffAtTheCap() async {
        let started = ContinuousClock.now
        let result = await inbound { $0.downloadMaxBytes = 64 * 1024 }.run(InboundRequest(items: [item(server.serve(.endless), "dump.bin")]))
        #expect(result.appendix == "[attachment dump.bin: not included: download failed: larger than the 64 KB download limit]")
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func anHonestLengthOverTheCapIsRefused() async {
        let url = server.serve(.body(Samples.text(bytes: 200 * 1024), contentType: "text/plain"), name: "big.log")
        let result = await inbound { $0.downloadMaxBytes = 64 * 1024 }.run(InboundRequest(items: [item(url, "big.log")]))
        #expect(result.appendix == "[attachment big.log: not included: download failed: larger than the 64 KB download limit]")
    }

    @Test func aContentLengthThatUnderstatesTheBodyDoesNotLiftTheCap() async {
        let url = server.serve(.endlessChunked(claimedLength: 100), name: "small.txt")
        let result = await inbound { $0.downloadMaxBytes = 64 * 1024 }.run(InboundRequest(items: [item(url, "small.txt")]))
        #expect(result.appendix == "[attachment small.txt: not included: download failed: larger than the 64 KB download limit]")
    }

    @Test func aContentLengthThatOverstatesTheBodyIsADroppedDownload() async {
        let url = server.serve(.shortBody(declared: 100_000, sent: 1000), name: "half.txt")
        let result = await inbound().run(InboundRequest(items: [item(url, "half.txt")]))
        #expect(result.appendix == "[attachment half.txt: not included: download failed: the connection closed before the whole file arrived]")
    }

    @Test func aConnectionDroppedInTheMiddleOfAChunkedBody() async {
        let url = server.serve(.droppedChunked, name: "cut.txt")
        let result = await inbound().run(InboundRequest(items: [item(url, "cut.txt")]))
        #expect(result.appendix == "[attachment cut.txt: not included: download failed: the connection closed before the whole file arrived]")
    }

    @Test func redirectsAreFollowed() async {
        let target = server.serve(.body(Samples.gif, contentType: "image/gif"), name: "real.gif")
        let hop = server.serve(.redirect(to: target), name: "short")
        let result = await inbound().run(InboundRequest(items: [item(server.serve(.redirect(to: hop)), "cat.gif")]))
        #expect(result.images.first?["mimeType"] == "image/gif")
    }

    @Test func aRedirectLoopStopsAtTheLimit() async {
        let path = "/\(UUID().uuidString)/loop"
        let url = server.serve(.redirect(to: server.url(path)), name: "start")
        _ = server.register(path, .redirect(to: url))
        let result = await inbound { $0.maxRedirects = 3 }.run(InboundRequest(items: [item(url, "loop.txt")]))
        #expect(result.appendix == "[attachment loop.txt: not included: download failed: more than 3 redirects]")
    }

    @Test func aRedirectToALocalFileIsRefused() async {
        let result = await inbound().run(InboundRequest(items: [item(server.serve(.redirect(to: "file:///etc/passwd")), "passwd")]))
        #expect(result.appendix == "[attachment passwd: not included: download failed: redirected to an address that is not http or https]")
    }

    @Test(
        "links other than http(s) are never fetched",
        arguments: [
            ("file:///etc/passwd", "file"), ("ftp://127.0.0.1/x", "ftp"), ("FILE:///etc/hosts", "file"), ("gopher://h/", "gopher"),
        ])
    func disallowedSchemes(url: String, scheme: String) async {
        let result = await inbound().run(InboundRequest(items: [item(url, "x")]))
        #expect(result.appendix == "[attachment x: not included: download failed: \(scheme):// links are not fetched, only http and https]")
    }

    @Test func aModelWithoutImageInputGetsANoteInstead() async {
        let url = server.serve(.body(Samples.jpeg, contentType: "image/jpeg"), name: "shot.jpg")
        let result = await inbound().run(InboundRequest(imageInput: false, items: [item(url, "shot.jpg")]))
        #expect(result.images.isEmpty)
        #expect(result.notes == ["shot.jpg was not sent: this session's model does not accept images"])
        #expect(result.appendix == "[attachment shot.jpg (159 bytes): image not sent: this session's model does not accept images]")
    }

    @Test func anImageOverTheImageLimitIsNotSent() async {
        let url = server.serve(.body(Samples.png, contentType: "image/png"), name: "a.png")
        let result = await inbound { $0.imageMaxBytes = 50 }.run(InboundRequest(items: [item(url, "a.png")]))
        #expect(result.images.isEmpty)
        #expect(result.notes == ["a.png was not sent: over the 50 bytes image limit"])
    }

    @Test func aDeclaredSizeOverTheCapSkipsTheDownload() async {
        let url = server.serve(.body(Samples.png, contentType: "image/png"), name: "huge.png")
        let result = await inbound().run(InboundRequest(items: [item(url, "huge.png", size: 50_000_000)]))
        #expect(result.appendix == "[attachment huge.png: not included: download failed: larger than the 10 MB download limit]")
        #expect(server.requests(containing: URL(string: url)!.path).isEmpty)
    }

    @Test func eachItemStandsOnItsOwn() async {
        let items = [
            item(server.serve(.status(500)), "broken.zip"),
            item(server.serve(.body(Samples.png, contentType: "image/png")), "one.png"),
            item(server.serve(.body(Array("print(1)\n".utf8), contentType: "text/x-python")), "a.py"),
            item(server.serve(.endless), "dump"),
            InboundItem(AttachmentRef(filename: "nolink.txt")),
            item(server.serve(.body(Samples.webp, contentType: "image/webp")), "two.webp"),
        ]
        let result = await inbound { $0.downloadMaxBytes = 32 * 1024 }.run(InboundRequest(items: items))
        #expect(result.images.map { $0["mimeType"] } == ["image/png", "image/webp"])
        #expect(
            result.appendix == """
                [attachment broken.zip: not included: download failed: HTTP 500]

                [attachment one.png: attached as an image (PNG, 69 bytes)]

                [attachment a.py]
                ```python
                print(1)
                ```

                [attachment dump: not included: download failed: larger than the 32 KB download limit]

                [attachment nolink.txt: not included: the message gave no link or absolute path for it]

                [attachment two.webp: attached as an image (WebP, 32 bytes)]
                """)
        #expect(result.notes.count == 3)
    }

    @Test func downloadsGoThroughTheConfiguredProxy() async {
        let url = server.serve(.body(Samples.png, contentType: "image/png"), name: "via-proxy.png")
        let path = URL(string: url)!.path
        // The host does not exist: only a proxy that receives the absolute URL can answer.
        let proxy = ProxySetting(url: "http://alice:s3cr3t@127.0.0.1:\(server.port)", bypass: nil)
        let result = await inbound(proxy: proxy).run(InboundRequest(items: [item("http://attachments.invalid" + path, "p.png")]))
        #expect(result.images.count == 1)
        #expect(server.requests(containing: path) == ["http://attachments.invalid" + path])
        #expect(!proxy.redacted.contains("s3cr3t"))
    }

    @Test func localFilesAreReadWithTheSameRules() async throws {
        let folder = TemporaryFolder()
        let spool = TemporaryFolder()
        let text = folder.write("notes.md", Array("# hi\n".utf8))
        let image = spool.write("upload-1.png", Samples.png)
        let binary = folder.write("a.out", [0, 1, 2])
        let items = [
            InboundItem(source: .path(text), name: "notes.md"),
            InboundItem(source: .path(image), name: "upload-1.png"),
            InboundItem(source: .path(binary), name: "a.out"),
            InboundItem(source: .path(folder.path + "/missing.txt"), name: "missing.txt"),
            InboundItem(source: .path(folder.path), name: "folder"),
            InboundItem(AttachmentRef(path: "relative/notes.md", filename: "relative.md")),
        ]
        let result = await inbound(spoolDir: spool.path).run(InboundRequest(items: items))
        #expect(result.images.count == 1)
        #expect(
            result.appendix == """
                [attachment notes.md]
                ```markdown
                # hi
                ```

                [attachment upload-1.png: attached as an image (PNG, 69 bytes)]

                [attachment a.out (3 bytes): not included: binary]

                [attachment missing.txt: not included: could not read the file: no such file]

                [attachment folder: not included: could not read the file: not a regular file]

                [attachment relative.md: not included: the message gave no link or absolute path for it]
                """)
        // The spooled upload was handed over and is gone; the user's own file stays.
        #expect(!FileManager.default.fileExists(atPath: image))
        #expect(FileManager.default.fileExists(atPath: text))
    }

    /// A spooled file the messenger says is over the limit (Telegram and Slack fetch up to 20 MiB
    /// before the relay's 10 MiB) is refused as too large, and still removed from the spool.
    @Test func aSpooledFileTooLargeIsRemovedToo() async throws {
        let spool = TemporaryFolder()
        let big = spool.write("telegram-1-4-report.pdf", [UInt8](repeating: 0x25, count: 2048))
        var config = AttachmentsConfig()
        config.downloadMaxBytes = 1024
        let result = await Inbound(config: config, proxy: .direct, loop: .shared, spoolDir: spool.path).run(
            InboundRequest(items: [InboundItem(source: .path(big), name: "report.pdf", declaredSize: 2048)]))
        #expect(
            result.appendix.contains("[attachment report.pdf") && result.appendix.contains("larger than the 1 KB download limit"),
            "\(result.appendix)")
        #expect(!FileManager.default.fileExists(atPath: big), "left in the spool")
    }

    @Test func paramsWithoutItemsAreInvalid() {
        #expect(throws: RemoteError.invalidParams("attachments.inbound needs `items`, a list of attachments")) {
            _ = try InboundRequest(params: ["sessionId": "s1"])
        }
        #expect(throws: RemoteError.self) { _ = try InboundRequest(params: "items") }
    }

    @Test func paramsAreRead() throws {
        let request = try InboundRequest(params: [
            "sessionId": "s1", "imageInput": false,
            "items": [["url": "https://cdn.example/a.png", "filename": "a.png", "size": 69, "contentType": "image/png"]],
        ])
        #expect(
            request
                == InboundRequest(
                    sessionID: "s1", imageInput: false,
                    items: [
                        InboundItem(source: .url("https://cdn.example/a.png"), name: "a.png", declaredSize: 69, declaredType: "image/png")
                    ]))
        #expect(try InboundRequest(params: ["items": []]).imageInput)
    }
}
