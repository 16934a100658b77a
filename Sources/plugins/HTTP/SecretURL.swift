/// A URL that may carry a secret, such as Telegram's `/bot<token>/` path. Only curl sees the
/// whole text (`unredacted`); `description`, string interpolation, `dump` and therefore logs and
/// errors show `***` in place of the secret.
package struct SecretURL: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL as sent. Hand it to curl only, never to a log line or an error.
    package let unredacted: String
    private let secrets: [String]

    /// `secret` is the part of `url` to hide; empty when the URL carries none.
    package init(_ url: String, secret: String = "") {
        unredacted = url
        secrets = secret.isEmpty ? [] : [secret]
    }

    /// A URL the owner wrote (a transcription endpoint): its user and password and its query
    /// (`?key=…`) may be credentials, and are hidden.
    package init(owned url: String) {
        unredacted = url
        let schemeEnd = url.firstRange(of: "://")?.upperBound ?? url.startIndex
        let authorityEnd = url[schemeEnd...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        var secrets: [String] = []
        if let at = url[schemeEnd..<authorityEnd].lastIndex(of: "@"), at > schemeEnd { secrets.append(String(url[schemeEnd..<at])) }
        if let query = url.firstIndex(of: "?") {
            let text = url[url.index(after: query)...].prefix { $0 != "#" }
            if !text.isEmpty { secrets.append(String(text)) }
        }
        self.secrets = secrets
    }

    package var description: String {
        secrets.reduce(unredacted) { shown, secret in shown.replacing(secret, with: "***") }
    }

    package var debugDescription: String { description }

    package var customMirror: Mirror { Mirror(self, children: ["url": description]) }

    /// The scheme, lowercased; "" when the text has none.
    package var scheme: String {
        guard let colon = unredacted.firstIndex(of: ":") else { return "" }
        return unredacted[..<colon].lowercased()
    }
}
