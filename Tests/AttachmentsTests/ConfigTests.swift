import PiRelayHTTP
import PiRelaySDK
import Testing

@testable import AttachmentsPlugin

@Suite("Config and proxy")
struct ConfigTests {
    @Test func defaults() throws {
        let config = try AttachmentsConfig(json: [:])
        #expect(config.textInlineMaxBytes == 102_400)
        #expect(config.imageMaxBytes == 3_932_160)
        // The image cap exists so the base64 form stays within Anthropic's 5 MiB.
        #expect((config.imageMaxBytes + 2) / 3 * 4 <= 5 * 1024 * 1024)
        #expect(config.downloadMaxBytes == 10_485_760)
        #expect(config.timeoutSeconds == 30)
        #expect(config.maxRedirects == 5)
        #expect(config.proxy == nil)
        #expect(try AttachmentsConfig(json: .null) == AttachmentsConfig())
    }

    @Test func everyKeyCanBeSet() throws {
        let config = try AttachmentsConfig(json: [
            "textInlineMaxBytes": 2048, "imageMaxBytes": 1000, "downloadMaxBytes": 5000,
            "timeoutSeconds": 2.5, "maxRedirects": 0, "proxy": " http://proxy.lan:3128 ",
        ])
        #expect(config.textInlineMaxBytes == 2048)
        #expect(config.imageMaxBytes == 1000)
        #expect(config.downloadMaxBytes == 5000)
        #expect(config.timeoutSeconds == 2.5)
        #expect(config.maxRedirects == 0)
        #expect(config.proxy == "http://proxy.lan:3128")
    }

    @Test(
        "bad values are refused with the key's name",
        arguments: [
            ("textInlineMaxBytes", JSONValue(-1)), ("imageMaxBytes", "big"), ("downloadMaxBytes", 0),
            ("timeoutSeconds", 0), ("maxRedirects", 51), ("proxy", 3128),
        ] as [(String, JSONValue)])
    func badValues(key: String, value: JSONValue) {
        #expect {
            _ = try AttachmentsConfig(json: .object([key: value]))
        } throws: { error in
            (error as? ConfigProblem)?.message.contains("attachments.\(key)") == true
        }
    }

    /// The key pasted where its variable's name goes: refused, and never repeated (the note about
    /// a missing key reaches the chat).
    @Test func aKeyPastedIntoKeyEnvIsRefusedWithoutBeingShown() {
        let pasted = "sk-proj-AttachmentsConfigTests-77"
        #expect {
            _ = try AttachmentsConfig(json: ["transcribe": ["endpoint": "https://api.openai.com/v1", "keyEnv": .string(pasted)]])
        } throws: { error in
            let message = (error as? ConfigProblem)?.message ?? ""
            return message.contains("attachments.transcribe.keyEnv must be the name of the variable") && !message.contains(pasted)
        }
        #expect((try? AttachmentsConfig(json: ["transcribe": ["keyEnv": "MY_WHISPER_KEY"]]))?.transcribe.keyEnv == "MY_WHISPER_KEY")
    }

    @Test func theConfiguredProxyWinsOverTheEnvironment() {
        let env = ["HTTPS_PROXY": "http://env:1", "https_proxy": "http://lower:2", "NO_PROXY": "localhost"]
        #expect(ProxySetting.resolve(configured: "http://conf:3", environment: env) == ProxySetting(url: "http://conf:3", bypass: "localhost"))
        #expect(ProxySetting.resolve(configured: nil, environment: env).url == "http://env:1")
        #expect(ProxySetting.resolve(configured: nil, environment: ["https_proxy": "http://lower:2"]).url == "http://lower:2")
        #expect(ProxySetting.resolve(configured: "", environment: env).url == nil)
        #expect(ProxySetting.resolve(configured: nil, environment: ["HTTP_PROXY": "http://plain:4"]) == .direct)
    }

    @Test func proxyCredentialsAreNeverShown() {
        let withCredentials = ProxySetting(url: "http://alice:s3cr3t@proxy.lan:3128/", bypass: nil)
        #expect(withCredentials.redacted == "http://***@proxy.lan:3128/")
        #expect(ProxySetting(url: "socks5h://tok@10.0.0.1:1080", bypass: nil).redacted == "socks5h://***@10.0.0.1:1080")
        #expect(ProxySetting(url: "user:pw@proxy:8080", bypass: nil).redacted == "***@proxy:8080")
        #expect(ProxySetting(url: "http://proxy.lan:3128", bypass: nil).redacted == "http://proxy.lan:3128")
        #expect(ProxySetting.direct.redacted == "none")
    }
}
