import FoundationEssentials
import PiRelaySDK

/// One value in config.yaml being converted to a setting. Each conversion either returns the value
/// or throws an error naming the value's dotted path and its place in the file, saying what was
/// expected and what kind of thing was found (never the value itself).
package struct ConfigField: Sendable {
    package let node: YAMLNode
    /// Dotted path for messages: `plugins.restart.jitter`, `discord.channels[0].id`.
    package let path: String
    package let file: String

    package func error(_ message: String) -> ConfigError {
        ConfigError(.invalidValue, file: file, at: node.mark, "\(path) \(message)")
    }

    /// "`path` must be `expected`, got `what was found`".
    package func mismatch(_ expected: String) -> ConfigError {
        error("must be \(expected), got \(node.kindDescription)")
    }

    /// The node as a map of settings.
    package func section() throws(ConfigError) -> ConfigSection {
        guard let pairs = node.pairs else { throw mismatch("a map of settings") }
        return ConfigSection(pairs: pairs, path: path, file: file, mark: node.mark)
    }

    /// The items of a list, each as a field (`path[i]`). `expected` describes the whole list for
    /// the error message, e.g. "a list of plugin names".
    package func list(_ expected: String) throws(ConfigError) -> [ConfigField] {
        guard let items = node.items else { throw mismatch(expected) }
        return items.enumerated().map { ConfigField(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    package func bool() throws(ConfigError) -> Bool {
        if case .bool(let value) = node.scalarValue { return value }
        // YAML 1.1 spellings, accepted where only true/false makes sense.
        if case .string(let spelling) = node.scalarValue, case .scalar(_, true) = node.content {
            switch spelling.lowercased() {
            case "yes", "on": return true
            case "no", "off": return false
            default: break
            }
        }
        throw mismatch("true or false")
    }

    /// Text, strictly: an unquoted `123` or `true` is not accepted, so a typo in a number setting
    /// is not silently taken as a name. The hint says how to write such text anyway.
    package func string(_ expected: String = "a string") throws(ConfigError) -> String {
        switch node.scalarValue {
        case .string(let value): return value
        case .integer, .float, .bool:
            throw error("must be \(expected), got \(node.kindDescription) (put it in quotes if you mean it as text)")
        default: throw mismatch(expected)
        }
    }

    package func nonEmptyString(_ expected: String = "a string") throws(ConfigError) -> String {
        let value = try string(expected)
        if value.isEmpty { throw error("must not be empty") }
        return value
    }

    /// Any scalar as written: for program arguments and environment values, where `8080` or
    /// `true` mean the text.
    package func text(_ expected: String) throws(ConfigError) -> String {
        guard case .scalar(let text, _) = node.content, !node.isNull else { throw mismatch(expected) }
        return text
    }

    /// A service's id as its plugin declares it: a YAML number or a string, read from the
    /// scalar's text, never through Double (ids are 64-bit). A number is no id of a form that
    /// starts with a letter.
    package func id(_ id: ConfigID) throws(ConfigError) -> String {
        let text: String
        switch node.scalarValue {
        case .integer(let digits):
            guard case .digits = id.form else { throw mismatch(id.what) }
            text = digits
        case .string(let value): text = value.trimmingInlineSpace()
        default: throw mismatch(id.what)
        }
        guard id.accepts(text) else { throw error("must be \(id.what): \(id.hint)") }
        return text
    }

    /// The name of an environment variable: letters, digits and `_`, not starting with a digit.
    /// A value that is not a name is most likely the secret itself pasted into the wrong key.
    package func environmentName() throws(ConfigError) -> String {
        let name = try string("the name of an environment variable")
        guard Self.isEnvironmentName(name), !YAMLNode.looksLikeSecret(name) else {
            throw error("must be the name of an environment variable (letters, digits and _), not the secret itself")
        }
        return name
    }

    package static func isEnvironmentName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }

    /// An absolute path; a leading `~/` means the user's home directory.
    package func absolutePath(home: String?) throws(ConfigError) -> String {
        let raw = try nonEmptyString("a path")
        var path = raw
        if raw == "~" || raw.hasPrefix("~/") {
            guard let home, !home.isEmpty else { throw error("starts with ~ but HOME is not set") }
            path = home + raw.dropFirst()
        }
        guard path.hasPrefix("/") else {
            throw error("must be an absolute path (starting with / or ~/)")
        }
        return path
    }

    /// One of a fixed set of words. The message lists the choices but does not repeat what was
    /// written.
    package func choice<T>(_ choices: KeyValuePairs<String, T>) throws(ConfigError) -> T {
        let word = try word(in: choices.map(\.key))
        return choices.first { $0.key == word }!.value
    }

    /// One of `words`, as written.
    package func word(in words: [String]) throws(ConfigError) -> String {
        let names = words.joined(separator: ", ")
        guard case .string(let word) = node.scalarValue else { throw mismatch("one of: \(names)") }
        guard words.contains(word) else { throw error("must be one of: \(names)") }
        return word
    }
}
