import FoundationEssentials
import PiRelaySDK

/// Masks secret values before they reach a log line or an error message. It knows the values of
/// secret-bearing environment variables (set at start), so a token printed by accident is caught
/// whatever its shape.
package enum Redactor {
    private static let state = SecretSet()

    /// Registers values to mask: every environment variable whose name looks secret.
    package static func learn(environment: [String: String]) {
        let names = ["TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"]
        let values = environment.compactMap { name, value -> String? in
            let upper = name.uppercased()
            guard value.count >= 6, names.contains(where: { upper.contains($0) }) else { return nil }
            return value
        }
        state.add(values)
    }

    /// Registers the text values under secret-named keys (`token`, `apiKey`, ...) anywhere in a
    /// plugin's config section.
    package static func learn(config: JSONValue) {
        switch config {
        case .object(let members):
            for (key, value) in members {
                if YAMLNode.isSecretKey(key), let text = value.stringValue { learn(secret: text) } else { learn(config: value) }
            }
        case .array(let items):
            for item in items { learn(config: item) }
        default:
            break
        }
    }

    package static func learn(secret: String) {
        if secret.count >= 6 { state.add([secret]) }
    }

    package static func redact(_ text: String) -> String {
        var out = text
        for secret in state.values where out.contains(secret) {
            out = out.replacing(secret, with: "[redacted]")
        }
        return out
    }
}

package final class SecretSet: @unchecked Sendable {
    private let lock = ThreadLock()
    private var set: [String] = []

    package func add(_ values: [String]) {
        lock.lock()
        defer { lock.unlock() }
        for value in values where !set.contains(value) { set.append(value) }
        set.sort { $0.count > $1.count }
    }

    package var values: [String] {
        lock.lock()
        defer { lock.unlock() }
        return set
    }
}
