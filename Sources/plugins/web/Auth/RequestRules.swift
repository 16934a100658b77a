/// Which Host and Origin headers the dashboard answers. Pure: the middleware asks, and refuses
/// what these refuse.
struct RequestRules: Sendable {
    /// Names always allowed: the machine's own loopback, on any port (so `ssh -L 9000:…` works).
    static let loopbackNames: Set<String> = ["127.0.0.1", "localhost", "::1"]

    /// Loopback names plus the configured ones (and the listen address when it is a name).
    let names: Set<String>
    /// `https` when serving TLS.
    let scheme: String

    init(config: WebConfig) {
        var names = Self.loopbackNames.union(config.hosts)
        if !config.listen.isWildcard { names.insert(config.listen.host) }
        self.names = names
        scheme = config.usesTLS ? "https" : "http"
    }

    /// The name in a Host header (`name:port`, `[v6]:port`), lowercased; nil when malformed.
    static func hostName(_ header: String) -> String? {
        let value = header.lowercased()
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let rest = value[value.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty, parts.count <= 2 else { return nil }
        if parts.count == 2 { guard !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber) else { return nil } }
        return String(name)
    }

    /// Whether a request with this Host header is for us: a page of another site whose name
    /// was made to resolve here (DNS rebinding) carries its own name, and is refused.
    func allowsHost(_ header: String?) -> Bool {
        guard let header, let name = Self.hostName(header) else { return false }
        return names.contains(name)
    }

    /// Whether `origin` is this server as the browser reached it: the request's own
    /// scheme://Host. A missing Origin is refused (every browser sends one on a POST and on a
    /// WebSocket upgrade).
    func allowsOrigin(_ origin: String?, host: String?) -> Bool {
        guard let origin, let host, allowsHost(host) else { return false }
        return origin.lowercased() == "\(scheme)://\(host.lowercased())"
    }
}
