extension YAMLNode {
    /// A secret written into config.yaml itself, such as `discord.token: MTIz...`.
    struct SecretLiteral: Sendable, Equatable {
        /// Dotted path of the key, e.g. `discord.token`.
        let path: String
        let mark: Mark
    }

    /// Keys named like a secret (`token`, `botToken`, `apiKey`, `client_secret`, `password`, ...)
    /// whose value is written out. Such a file must be private to its owner. `...Env` keys name a
    /// variable instead and are fine anywhere.
    func secretLiterals(path: String = "") -> [SecretLiteral] {
        switch content {
        case .scalar:
            return []
        case .sequence(let items):
            return items.enumerated().flatMap { $1.secretLiterals(path: "\(path)[\($0)]") }
        case .mapping(let pairs):
            return pairs.flatMap { pair -> [SecretLiteral] in
                guard case .scalar(let name, _) = pair.key.content else { return [] }
                let keyPath = path.isEmpty ? name : path + "." + name
                if Self.isSecretKey(name), Self.isLiteral(pair.value) {
                    return [SecretLiteral(path: keyPath, mark: pair.key.mark)]
                }
                return pair.value.secretLiterals(path: keyPath)
            }
        }
    }

    static func isSecretKey(_ name: String) -> Bool {
        let folded = name.lowercased().filter { $0 != "_" && $0 != "-" }
        return ["token", "secret", "password", "passwd", "apikey", "key"].contains { folded.hasSuffix($0) }
    }

    /// A written-out value: text or a number, not null, true/false, a list or a map.
    private static func isLiteral(_ node: YAMLNode) -> Bool {
        switch node.scalarValue {
        case .string(let s): return !s.isEmpty
        case .integer, .float: return true
        case .null, .bool, .none: return false
        }
    }
}
