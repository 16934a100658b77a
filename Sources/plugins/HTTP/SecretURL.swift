/// A URL that may carry a secret, such as Telegram's `/bot<token>/` path. Only curl sees the
/// whole text (`unredacted`); `description`, string interpolation, `dump` and therefore logs and
/// errors show `***` in place of the secret.
package struct SecretURL: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL as sent. Hand it to curl only, never to a log line or an error.
    package let unredacted: String
    private let secret: String

    /// `secret` is the part of `url` to hide; empty when the URL carries none.
    package init(_ url: String, secret: String = "") {
        unredacted = url
        self.secret = secret
    }

    package var description: String {
        secret.isEmpty ? unredacted : unredacted.replacing(secret, with: "***")
    }

    package var debugDescription: String { description }

    package var customMirror: Mirror { Mirror(self, children: ["url": description]) }

    /// The scheme, lowercased; "" when the text has none.
    package var scheme: String {
        guard let colon = unredacted.firstIndex(of: ":") else { return "" }
        return unredacted[..<colon].lowercased()
    }
}
