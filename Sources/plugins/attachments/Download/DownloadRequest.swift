import PiRelayHTTP

/// One HTTP(S) fetch with its limits.
struct DownloadRequest: Sendable {
    var url: String
    /// The transfer is aborted as soon as the body passes this many bytes.
    var maxBytes: Int
    var timeout: Duration
    var maxRedirects: Int
    var proxy: ProxySetting

    /// Only web links are fetched: a file:// or ftp:// link from a chat must never reach the disk
    /// or another service. curl enforces the same for redirects; checking here gives a clearer reason.
    var disallowedScheme: String? {
        guard let colon = url.firstIndex(of: ":") else { return "" }
        let scheme = url[..<colon].lowercased()
        return scheme == "http" || scheme == "https" ? nil : scheme
    }
}
