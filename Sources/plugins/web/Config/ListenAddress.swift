import PiRelaySDK

/// `web.listen`: where the dashboard listens, `HOST:PORT` (`[::1]:7780` for IPv6). Port 0 takes
/// any free port (tests).
struct ListenAddress: Sendable, Equatable {
    var host: String
    var port: Int

    static let `default` = ListenAddress(host: "127.0.0.1", port: 7780)

    /// Nil when `text` is not `HOST:PORT` with a port from 0 to 65535.
    init?(_ text: String) {
        let text = text.trimmed()
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            port = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, let number = Int(port), (0...65535).contains(number) else { return nil }
        self.host = host.lowercased()
        self.port = number
    }

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// 127.0.0.0/8, `localhost` and `::1`: reachable from this machine only.
    var isLoopback: Bool { LoopbackHost.contains(host) }

    /// `0.0.0.0` or `::`: every interface, so no name to put in a link.
    var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// The host as it goes in a URL (IPv6 in brackets).
    static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
