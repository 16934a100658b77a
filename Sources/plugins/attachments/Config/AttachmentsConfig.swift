import FoundationEssentials
import PiRelaySDK

/// The `attachments:` section of config.yaml, with defaults for every key.
struct AttachmentsConfig: Sendable, Equatable {
    /// Text files strictly smaller than this are inlined into the prompt.
    var textInlineMaxBytes = 102_400
    /// Anthropic's API rejects an image whose *base64* form exceeds 5 MiB (5,242,880 characters), the
    /// tightest limit among the vision APIs pi talks to; 3/4 of that is the raw size that still fits.
    var imageMaxBytes = 3_932_160
    /// A transfer is aborted once it passes this many bytes. 10 MiB matches Discord's default upload
    /// limit, so nearly every chat attachment is measured exactly before being judged too large.
    var downloadMaxBytes = 10_485_760
    var timeoutSeconds: Double = 30
    var maxRedirects = 5
    /// nil: use HTTPS_PROXY/https_proxy from the environment. "": never use a proxy.
    var proxy: String?
    /// How voice notes become text.
    var transcribe = TranscribeConfig()

    init() {}

    init(json: JSONValue) throws(ConfigProblem) {
        guard case .object(let section) = json else {
            if json.isNull { return }
            throw ConfigProblem("the attachments section must be a mapping of keys to values")
        }
        textInlineMaxBytes = try Self.positiveInt(section, "textInlineMaxBytes", default: textInlineMaxBytes)
        imageMaxBytes = try Self.positiveInt(section, "imageMaxBytes", default: imageMaxBytes)
        downloadMaxBytes = try Self.positiveInt(section, "downloadMaxBytes", default: downloadMaxBytes)
        maxRedirects = try Self.int(section, "maxRedirects", in: 0...50, default: maxRedirects)
        if let value = section["timeoutSeconds"], !value.isNull {
            guard let seconds = value.doubleValue, seconds > 0, seconds <= 3600 else {
                throw ConfigProblem("attachments.timeoutSeconds must be a number of seconds between 0 and 3600")
            }
            timeoutSeconds = seconds
        }
        if let value = section["proxy"], !value.isNull {
            guard let text = value.stringValue else {
                throw ConfigProblem("attachments.proxy must be a URL such as http://proxy.example:3128, or empty for none")
            }
            proxy = text.trimmingInlineSpace()
        }
        transcribe = try TranscribeConfig(json: section["transcribe"] ?? .null)
    }

    private static func positiveInt(_ section: [String: JSONValue], _ key: String, default value: Int) throws(ConfigProblem) -> Int {
        try int(section, key, in: 1...Int(Int32.max), default: value)
    }

    private static func int(
        _ section: [String: JSONValue], _ key: String, in range: ClosedRange<Int>,
        default value: Int
    ) throws(ConfigProblem) -> Int {
        guard let raw = section[key], !raw.isNull else { return value }
        guard let number = raw.intValue, range.contains(number) else {
            throw ConfigProblem("attachments.\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
