import PiRelaySDK

/// `attachments.transcribe`: how voice notes become text. Either an offline command (argv, run
/// without a shell, with `{file}`, `{wav}` and `{lang}` filled in) or an OpenAI-compatible
/// `/audio/transcriptions` endpoint with its key in the environment (`.env`).
struct TranscribeConfig: Sendable, Equatable {
    /// The command's argv; `~/` at the start of a word is the home folder.
    var command: [String]?
    /// The endpoint's URL: a base such as `https://api.openai.com/v1`, or the whole
    /// `…/audio/transcriptions`.
    var endpoint: String?
    var model = "whisper-1"
    /// The environment variable that holds the endpoint's key.
    var keyEnv = BundledSecret.transcribeKey
    /// An ISO-639-1 code (`en`), for `{lang}` and the endpoint's `language`; nil lets the tool guess.
    var language: String?
    /// A longer voice note is not transcribed (and the chat is told).
    var maxSeconds = 300
    var timeoutSeconds = 120

    var isConfigured: Bool { command != nil || endpoint != nil }

    /// The endpoint's full URL.
    var endpointURL: String? {
        guard var base = endpoint else { return nil }
        while base.hasSuffix("/") { base.removeLast() }
        return base.hasSuffix("/audio/transcriptions") ? base : base + "/audio/transcriptions"
    }

    init() {}

    init(json: JSONValue) throws(ConfigProblem) {
        guard case .object(let section) = json else {
            if json.isNull { return }
            throw ConfigProblem("attachments.transcribe must be a mapping (command or endpoint, and its settings)")
        }
        if let value = section["command"], !value.isNull {
            guard let words = value.arrayValue?.compactMap(\.stringValue), words.count == value.arrayValue?.count, let first = words.first,
                !first.isEmpty
            else {
                throw ConfigProblem(
                    "attachments.transcribe.command must be a list of words, the program first: [\"whisper-cli\", \"-m\", \"~/models/ggml-base.bin\", \"-nt\", \"-f\", \"{wav}\"]"
                )
            }
            command = words
        }
        if let value = section["endpoint"], !value.isNull {
            guard let url = value.stringValue, url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw ConfigProblem("attachments.transcribe.endpoint must be an http(s) URL such as https://api.openai.com/v1")
            }
            endpoint = url
        }
        if command != nil && endpoint != nil {
            throw ConfigProblem("attachments.transcribe takes command or endpoint, not both")
        }
        model = try Self.string(section, "model") ?? model
        keyEnv = try Self.string(section, "keyEnv") ?? keyEnv
        // Not a name: the key itself, pasted in the wrong place. Never repeated (the missing
        // key's note goes to the chat).
        guard let first = keyEnv.unicodeScalars.first, !("0"..."9").contains(first),
            keyEnv.unicodeScalars.allSatisfy({ $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else {
            throw ConfigProblem(
                "attachments.transcribe.keyEnv must be the name of the variable that holds the key (such as TRANSCRIBE_API_KEY), "
                    + "not the key itself: put the key in .env")
        }
        if let code = try Self.string(section, "language") {
            guard (2...3).contains(code.count), code.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
                throw ConfigProblem("attachments.transcribe.language must be a language code such as en or de")
            }
            language = code
        }
        maxSeconds = try Self.int(section, "maxSeconds", in: 1...14_400, default: maxSeconds)
        timeoutSeconds = try Self.int(section, "timeoutSeconds", in: 1...3600, default: timeoutSeconds)
    }

    private static func string(_ section: [String: JSONValue], _ key: String) throws(ConfigProblem) -> String? {
        guard let value = section[key], !value.isNull else { return nil }
        guard let text = value.stringValue, !text.isEmpty else { throw ConfigProblem("attachments.transcribe.\(key) must be a string") }
        return text
    }

    private static func int(
        _ section: [String: JSONValue], _ key: String, in range: ClosedRange<Int>, default value: Int
    ) throws(ConfigProblem)
        -> Int
    {
        guard let raw = section[key], !raw.isNull else { return value }
        guard let number = raw.intValue, range.contains(number) else {
            throw ConfigProblem("attachments.transcribe.\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
