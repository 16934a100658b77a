import FoundationEssentials
import PiRelaySDK

/// Masks secret values before they reach a log line or an error message. It knows the values of
/// secret-bearing environment variables (set at start), so a token printed by accident is caught
/// whatever its shape.
package enum Redactor {
    private static let state = SecretSet()

    /// Registers values to mask: every environment variable whose name looks secret, and the
    /// password in any variable that holds a URL with one (`postgres://user:PASSWORD@host/db`,
    /// as the federation's database address is given).
    package static func learn(environment: [String: String]) {
        let names = ["TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"]
        let values = environment.compactMap { name, value -> String? in
            let upper = name.uppercased()
            guard value.count >= 6, names.contains(where: { upper.contains($0) }) else { return nil }
            return value
        }
        state.add(values)
        for value in environment.values { learn(urlPassword: value) }
    }

    /// Registers the text values under secret-named keys (`token`, `apiKey`, ...) anywhere in a
    /// plugin's config section, and the values of the variables its `…Env` keys name (a token
    /// kept in a variable of any name: `tokenEnv: MY_BOT`).
    package static func learn(config: JSONValue, environment: [String: String] = [:]) {
        let secrets = SectionSecrets(config)
        for literal in secrets.literals { learn(secret: literal) }
        learn(variables: secrets.variables, environment: environment)
    }

    /// Registers the values of the variables `names` (a plugin's secrets by name), and the
    /// password of one that is an address.
    package static func learn(variables names: [String], environment: [String: String]) {
        for secret in names.compactMap({ environment[$0] }) {
            learn(secret: secret)
            learn(urlPassword: secret)
        }
    }

    /// Registers the secrets in a command's arguments (`pi.args`): the value after a
    /// secret-named flag (`--api-key KEY`), one joined to it (`--token=KEY`), and a password in
    /// an address. pi's command line is logged when a session starts.
    package static func learn(arguments: [String]) {
        for (index, argument) in arguments.enumerated() {
            if let joined = YAMLNode.joinedSecret(argument) {
                learn(secret: joined)
            } else if index > 0, YAMLNode.isSecretFlag(arguments[index - 1]) {
                learn(secret: argument)
            }
            learn(urlPassword: argument)
        }
    }

    /// `scheme://user:PASSWORD@host…`: the password.
    private static func learn(urlPassword value: String) {
        guard let scheme = value.firstRange(of: "://") else { return }
        let rest = value[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return }
        let userinfo = authority[..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return }
        learn(secret: String(userinfo[userinfo.index(after: colon)...]))
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
