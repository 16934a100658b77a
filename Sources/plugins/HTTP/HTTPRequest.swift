/// One HTTP exchange to run on the transfer loop. Never logged whole: its headers or its URL may
/// carry a token (the URL redacts itself; headers are never printed).
package struct HTTPRequest: Sendable {
    package var method: String
    package var url: SecretURL
    /// Complete header lines ("Name: value").
    package var headers: [String]
    package var body: HTTPBody
    /// The whole exchange, connecting included.
    package var timeout: Duration
    /// Connecting alone (DNS, TCP, TLS, proxy); capped by `timeout`.
    package var connectTimeout: Duration
    package var proxy: ProxySetting
    /// Through an HTTP proxy, CONNECT even for http:// URLs, so the proxy never sees a request
    /// line (or its headers, such as a token); otherwise curl tunnels https:// only.
    package var tunnelsThroughProxy: Bool
    /// Redirects followed (only to http and https); 0 returns a 3xx as it is.
    package var maxRedirects: Int
    /// The transfer fails with `.tooLarge` as soon as the body passes this many bytes.
    package var maxBytes: Int?
    /// A status of 400 or more ends the transfer before its body: the response comes back with that
    /// status and an empty body.
    package var skipsErrorBody: Bool
    /// PEM certificates to trust instead of the system's (a self-signed server's, in tests).
    package var trustedCertificates: String? = nil

    package init(
        method: String = "GET", url: SecretURL, headers: [String] = [], body: HTTPBody = .none,
        timeout: Duration, connectTimeout: Duration = .seconds(15), proxy: ProxySetting,
        tunnelsThroughProxy: Bool = false, maxRedirects: Int = 0, maxBytes: Int? = nil, skipsErrorBody: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.proxy = proxy
        self.tunnelsThroughProxy = tunnelsThroughProxy
        self.maxRedirects = maxRedirects
        self.maxBytes = maxBytes
        self.skipsErrorBody = skipsErrorBody
    }
}
