/// A map of settings in config.yaml (`plugins:`, `plugins.restart:`, one Discord channel...).
/// Getters return the default when a key is absent or null, so `logs:` with every line commented
/// out is fine. Every key a getter asks for is remembered: keys in the file that nobody asked for
/// are the unknown ones, and the asked-for keys are the "did you mean" candidates.
package final class ConfigSection {
    /// Dotted path of this map; empty for the top level.
    package let path: String
    package let file: String
    package let mark: YAMLNode.Mark
    private let pairs: [YAMLNode.Pair]
    private var askedFor: [String] = []
    /// Sections opened with `section(_:)`, so their unknown keys are reported too.
    package private(set) var children: [ConfigSection] = []

    package init(pairs: [YAMLNode.Pair], path: String, file: String, mark: YAMLNode.Mark) {
        self.pairs = pairs
        self.path = path
        self.file = file
        self.mark = mark
    }

    package func keyPath(_ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// The key's value, or nil when it is absent or null.
    package func field(_ key: String) -> ConfigField? {
        if !askedFor.contains(key) { askedFor.append(key) }
        guard let pair = pairs.first(where: { Self.name(of: $0) == key }), !pair.value.isNull else { return nil }
        return ConfigField(node: pair.value, path: keyPath(key), file: file)
    }

    package func value<T>(
        _ key: String, default fallback: T,
        _ convert: (ConfigField) throws(ConfigError) -> T
    ) throws(ConfigError) -> T {
        guard let field = field(key) else { return fallback }
        return try convert(field)
    }

    /// A nested map; absent or null gives an empty section (all defaults).
    package func section(_ key: String) throws(ConfigError) -> ConfigSection {
        let child = try field(key)?.section() ?? ConfigSection(pairs: [], path: keyPath(key), file: file, mark: mark)
        children.append(child)
        return child
    }

    /// Every key present in the file, in file order: for a map whose keys are names (sessions by
    /// name, say) rather than settings.
    package var presentKeys: [String] {
        pairs.map(Self.name(of:)).filter { !$0.isEmpty }
    }

    /// A map read some other way (an item of a list of maps), whose unknown keys this section
    /// reports with its own.
    package func include(_ child: ConfigSection) {
        children.append(child)
    }

    /// Keys present in the file that no getter asked for, in file order.
    package var unknownKeys: [YAMLNode.Pair] {
        pairs.filter { !askedFor.contains(Self.name(of: $0)) }
    }

    /// One warning per unknown key: `file:line:col: unknown key 'x' in plugins (ignored; did you
    /// mean 'y'?)`. `skipping` leaves out keys that are reported some other way.
    package func unknownKeyWarnings(skipping: (String) -> Bool = { _ in false }) -> [String] {
        unknownKeys.compactMap { pair in
            let name = Self.name(of: pair)
            guard !skipping(name) else { return nil }
            var text = "\(file):\(pair.key.mark): unknown key \(YAMLNode.quoted(name))"
            if !path.isEmpty { text += " in \(path)" }
            text += " (ignored"
            if let suggestion = Self.closest(to: name, in: askedFor) { text += "; did you mean '\(suggestion)'?" }
            return text + ")"
        }
    }

    /// Throws for the first unknown key here or in a section opened inside: for a section where a
    /// misspelled key would quietly leave out what the owner asked for (an approval rule).
    /// `because` ends the message: what ignoring the key would cost.
    package func refuseUnknownKeys(because cost: String) throws(ConfigError) {
        if let pair = unknownKeys.first {
            let name = Self.name(of: pair)
            var text = "unknown key \(YAMLNode.quoted(name))" + (path.isEmpty ? "" : " in \(path)")
            if let suggestion = Self.closest(to: name, in: askedFor) { text += " (did you mean '\(suggestion)'?)" }
            throw ConfigError(.invalidValue, file: file, at: pair.key.mark, "\(text): \(cost)")
        }
        for child in children { try child.refuseUnknownKeys(because: cost) }
    }

    /// This section's unknown-key warnings followed by those of the sections opened inside it.
    package func unknownKeyWarningsIncludingNested() -> [String] {
        unknownKeyWarnings() + children.flatMap { $0.unknownKeyWarningsIncludingNested() }
    }

    private static func name(of pair: YAMLNode.Pair) -> String {
        if case .scalar(let text, _) = pair.key.content { return text }
        return ""
    }

    /// The candidate within two edits (ignoring case) of `name`, if there is one.
    package static func closest(to name: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 < name.count else { return nil }
        return best.0
    }

    package static func editDistance(_ source: String, _ target: String) -> Int {
        let source = Array(source), target = Array(target)
        guard !source.isEmpty else { return target.count }
        var previous = Array(0...target.count)
        for sourceIndex in 1...source.count {
            var current = [sourceIndex] + Array(repeating: 0, count: target.count)
            for targetIndex in 0..<target.count {
                current[targetIndex + 1] = min(
                    previous[targetIndex + 1] + 1, current[targetIndex] + 1,
                    previous[targetIndex] + (source[sourceIndex - 1] == target[targetIndex] ? 0 : 1))
            }
            previous = current
        }
        return previous[target.count]
    }
}
