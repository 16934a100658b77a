import PiRelayHTTP
import PiRelaySDK

/// The dashboard as a browser reaches it, through the project's libcurl client: any Host,
/// Origin and cookie a test asks for, redirects not followed.
struct WebClient: Sendable {
    let base: String
    var cookie: String?
    /// The PEM file to trust for an HTTPS dashboard with a certificate made by the test.
    var trusted: String? = nil

    func get(_ path: String, headers: [String] = []) async throws -> HTTPResponse {
        try await send(HTTPRequest(url: SecretURL(base + path), headers: headers + cookieHeader, timeout: .seconds(30), proxy: .direct))
    }

    /// A POST of `body` as JSON; `origin` is the page's own unless a test says otherwise (nil
    /// sends none).
    func post(_ path: String, _ body: JSONValue, origin: String?? = .none, headers: [String] = []) async throws -> HTTPResponse {
        try await post(path, raw: body.serializedBytes(), origin: origin, headers: headers)
    }

    /// A POST of `raw` bytes as JSON, whatever they are (a broken body, an oversized one).
    func post(_ path: String, raw: [UInt8], origin: String?? = .none, headers: [String] = []) async throws -> HTTPResponse {
        let sentOrigin: String? = origin ?? base
        var all = headers + cookieHeader
        if let sentOrigin { all.append("Origin: " + sentOrigin) }
        return try await send(
            HTTPRequest(method: "POST", url: SecretURL(base + path), headers: all, body: .json(raw), timeout: .seconds(30), proxy: .direct))
    }

    private var cookieHeader: [String] { cookie.map { ["Cookie: " + $0] } ?? [] }

    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.trustedCertificates = trusted
        return try await TransferLoop.shared.perform(request).get()
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue { (try? JSONValue.parse(bytes: body)) ?? .null }
}
