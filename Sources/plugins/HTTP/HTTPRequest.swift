/// One HTTP exchange to run on the transfer loop. Built by `DiscordREST`, never logged whole:
/// the headers carry the bot token.
struct HTTPRequest: Sendable {
    var method: String
    var url: String
    /// Complete header lines ("Name: value").
    var headers: [String]
    var body: HTTPBody
    var timeout: Duration
    var proxy: ProxySetting
}

/// What goes after the headers.
enum HTTPBody: Sendable {
    case none
    case json([UInt8])
    /// Discord's file upload shape: a `payload_json` part and one `files[n]` part per file, which
    /// curl streams from disk on the loop thread.
    case multipart(payloadJSON: [UInt8], files: [UploadFile])
}
