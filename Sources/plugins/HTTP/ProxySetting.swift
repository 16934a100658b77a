import FoundationEssentials
import PiRelaySDK

/// The proxy for a plugin's HTTP (and the discord gateway): the configured one (`discord.proxy`,
/// `attachments.proxy`...), else HTTPS_PROXY/https_proxy.
package struct ProxySetting: Sendable, Equatable {
    /// nil = connect directly. curl is then told so explicitly, so it never falls back to other
    /// proxy variables on its own.
    package let url: String?
    /// NO_PROXY/no_proxy, handed to curl as is.
    package let bypass: String?

    package static let direct = ProxySetting(url: nil, bypass: nil)

    package init(url: String?, bypass: String?) {
        self.url = url
        self.bypass = bypass
    }

    package static func resolve(configured: String?, environment: [String: String]) -> ProxySetting {
        let bypass = nonEmpty(environment["NO_PROXY"]) ?? nonEmpty(environment["no_proxy"])
        if let configured { return ProxySetting(url: nonEmpty(configured), bypass: bypass) }
        return ProxySetting(url: nonEmpty(environment["HTTPS_PROXY"]) ?? nonEmpty(environment["https_proxy"]), bypass: bypass)
    }

    /// The proxy as scheme, host and port, for the WebSocket client (which speaks HTTP CONNECT
    /// and SOCKS5 itself). nil when there is no proxy or it cannot be parsed.
    package var endpoint: (scheme: String, host: String, port: Int)? {
        guard let url else { return nil }
        let schemeEnd = url.firstRange(of: "://")
        let scheme = schemeEnd.map { String(url[..<$0.lowerBound]).lowercased() } ?? "http"
        var rest = schemeEnd.map { url[$0.upperBound...] } ?? url[...]
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let host: Substring
        let portText: Substring?
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            portText = after.hasPrefix(":") ? after.dropFirst() : nil
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
            portText = nil
        }
        guard !host.isEmpty else { return nil }
        let defaultPort = scheme.hasPrefix("socks") ? 1080 : (scheme == "https" ? 443 : 80)
        let port = portText.flatMap { Int($0) } ?? defaultPort
        return (scheme, String(host), port)
    }

    /// The scheme when the gateway's WebSocket client cannot speak it: it does plain HTTP CONNECT
    /// and SOCKS5, so an `https://` proxy (TLS to the proxy) or a SOCKS4 one would be spoken to
    /// wrongly. nil for a supported scheme or no proxy; a URL without a scheme is HTTP, as for curl.
    package var unsupportedGatewayScheme: String? {
        guard let url, let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        return ["http", "socks5", "socks5h"].contains(scheme) ? nil : scheme
    }

    /// User name and password from the URL (percent-decoded), for the gateway's HTTP CONNECT.
    package var credentials: (user: String, password: String)? {
        guard let url, let schemeEnd = url.firstRange(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let info = authority[..<at]
        let parts = info.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let user = String(parts[0]).percentDecoded ?? String(parts[0])
        let password = parts.count > 1 ? (String(parts[1]).percentDecoded ?? String(parts[1])) : ""
        return (user, password)
    }

    /// Whether NO_PROXY names `host` (curl applies it to REST itself; the gateway asks here):
    /// "*", an exact host, or a domain suffix with or without a leading dot.
    package func bypasses(host: String) -> Bool {
        guard let bypass else { return false }
        let host = host.lowercased()
        for entry in bypass.split(separator: ",") {
            var suffix = entry.trimmingInlineSpace().lowercased()
            if suffix == "*" { return true }
            if suffix.hasPrefix(".") { suffix.removeFirst() }
            guard !suffix.isEmpty else { continue }
            if host == suffix || host.hasSuffix("." + suffix) { return true }
        }
        return false
    }

    /// For logs and `status`: user name and password replaced by `***`.
    package var redacted: String {
        guard let url else { return "none" }
        let schemeEnd = url.firstRange(of: "://")?.upperBound ?? url.startIndex
        let authorityEnd = url[schemeEnd...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let at = url[schemeEnd..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd]) + "***" + String(url[at...])
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
