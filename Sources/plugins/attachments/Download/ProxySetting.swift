/// Which proxy downloads go through: the configured one, else HTTPS_PROXY/https_proxy.
struct ProxySetting: Sendable, Equatable {
    /// nil means a direct connection; curl is told so explicitly so it never picks up other
    /// proxy variables (ALL_PROXY, http_proxy) on its own.
    let url: String?
    /// Hosts that bypass the proxy, from NO_PROXY/no_proxy.
    let bypass: String?

    static let direct = ProxySetting(url: nil, bypass: nil)

    static func resolve(configured: String?, environment: [String: String]) -> ProxySetting {
        let bypass = nonEmpty(environment["NO_PROXY"]) ?? nonEmpty(environment["no_proxy"])
        if let configured {
            return ProxySetting(url: configured.isEmpty ? nil : configured, bypass: bypass)
        }
        let fromEnvironment = nonEmpty(environment["HTTPS_PROXY"]) ?? nonEmpty(environment["https_proxy"])
        return ProxySetting(url: fromEnvironment, bypass: bypass)
    }

    /// For logs and `status`: the proxy URL with any user name and password replaced by `***`.
    var redacted: String {
        guard let url else { return "none" }
        let schemeEnd = url.range(of: "://")?.upperBound ?? url.startIndex
        let authorityEnd = url[schemeEnd...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let at = url[schemeEnd..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd]) + "***" + String(url[at...])
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }
}
