extension YAMLNode {
    /// A secret written into config.yaml itself, such as `discord.token: MTIz...`.
    package struct SecretLiteral: Sendable, Equatable {
        /// Dotted path of the key, e.g. `discord.token`.
        package let path: String
        package let mark: Mark
    }

    /// Keys named like a secret (`token`, `botToken`, `apiKey`, `client_secret`, `password`, ...)
    /// whose value is written out. Such a file must be private to its owner. `...Env` keys name a
    /// variable instead and are fine anywhere.
    package func secretLiterals(path: String = "") -> [SecretLiteral] {
        switch content {
        case .scalar:
            return []
        case .sequence(let items):
            return items.enumerated().flatMap { index, item in
                // A command's arguments (`pi.args`): an address with a password, the value after
                // a secret-named flag (`--api-key KEY`), or one joined to it (`--token=KEY`).
                let afterFlag = index > 0 && Self.isSecretFlag(items[index - 1].scalarText) && Self.isLiteral(item)
                let joined = Self.joinedSecret(item.scalarText) != nil
                return Self.hasPasswordInAddress(item) || afterFlag || joined
                    ? [SecretLiteral(path: "\(path)[\(index)]", mark: item.mark)] : item.secretLiterals(path: "\(path)[\(index)]")
            }
        case .mapping(let pairs):
            return pairs.flatMap { pair -> [SecretLiteral] in
                guard case .scalar(let name, _) = pair.key.content else { return [] }
                // A pasted token can be the key itself ("MTIz... token: ..."); the path is
                // shown in warnings, so such a key is named by its place, not its text.
                let shown = Self.looksLikeSecret(name) ? "(key not shown)" : name
                let keyPath = path.isEmpty ? shown : path + "." + shown
                if Self.isSecretKey(name) && Self.isLiteral(pair.value) && !Self.namesAKeyFile(name, pair.value.scalarText)
                    || Self.hasPasswordInAddress(pair.value) || Self.isPastedSecret(name, pair.value.scalarText)
                {
                    return [SecretLiteral(path: keyPath, mark: pair.key.mark)]
                }
                return pair.value.secretLiterals(path: keyPath)
            }
        }
    }

    /// A command-line flag named like a secret: `--api-key`, `--token`, `-password`.
    package static func isSecretFlag(_ text: String?) -> Bool {
        guard let text, text.hasPrefix("-"), !text.contains("=") else { return false }
        let name = text.drop { $0 == "-" }
        return !name.isEmpty && isSecretKey(String(name))
    }

    /// The value of `--flag=VALUE` when the flag is named like a secret.
    package static func joinedSecret(_ text: String?) -> String? {
        guard let text, text.hasPrefix("-"), let equals = text.firstIndex(of: "="),
            isSecretFlag(String(text[..<equals]))
        else { return nil }
        let value = String(text[text.index(after: equals)...])
        return value.isEmpty ? nil : value
    }

    private var scalarText: String? {
        if case .string(let text) = scalarValue { return text }
        return nil
    }

    /// A `key` that holds a path is a key file's place, not a key: `web.tls.key: /etc/ssl/key.pem`
    /// (a PEM's text never starts so). The file itself is guarded by its own mode.
    package static func namesAKeyFile(_ name: String, _ value: String?) -> Bool {
        guard name.lowercased() == "key", let value else { return false }
        return ["/", "~/", "./", "../"].contains { value.hasPrefix($0) }
    }

    /// A `…Env` key holds a variable's name; text that is no name, or looks like a token, is the
    /// secret itself pasted there (`keyEnv: sk-proj-…`), and is treated as one.
    package static func isPastedSecret(_ name: String, _ value: String?) -> Bool {
        guard name.hasSuffix("Env"), let value, !value.isEmpty else { return false }
        return !ConfigField.isEnvironmentName(value) || looksLikeSecret(value)
    }

    package static func isSecretKey(_ name: String) -> Bool {
        let folded = name.lowercased().filter { $0 != "_" && $0 != "-" }
        return ["token", "secret", "password", "passwd", "apikey", "key"].contains { folded.hasSuffix($0) }
    }

    /// An address with a password in it (`postgres://relay:pw@db/relay`, given to pi as
    /// `pi.env.DATABASE_URL`, say), whatever its key is called.
    private static func hasPasswordInAddress(_ node: YAMLNode) -> Bool {
        guard case .string(let text) = node.scalarValue, let scheme = text.firstRange(of: "://") else { return false }
        let authority = text[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return false }
        let credentials = authority[..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return false }
        return credentials.index(after: colon) < credentials.endIndex
    }

    /// A written-out value: text or a number, not null, true/false, a list or a map.
    private static func isLiteral(_ node: YAMLNode) -> Bool {
        switch node.scalarValue {
        case .string(let text): return !text.isEmpty
        case .integer, .float: return true
        case .null, .bool, .none: return false
        }
    }
}

extension YAMLNode {
    /// Whether text that should be a name (a key, a variable name) looks like a pasted token or
    /// API key instead. Messages show such text as "(not shown)" rather than echo it.
    package static func looksLikeSecret(_ text: String) -> Bool {
        let wellKnownPrefixes = ["sk-", "sk_", "xoxb-", "xoxp-", "ghp_", "gho_", "github_pat_", "glpat-"]
        if wellKnownPrefixes.contains(where: text.hasPrefix) { return true }
        if text.count >= 40 { return true }
        guard text.count >= 20 else { return false }
        let hasLower = text.contains { $0.isLowercase }, hasUpper = text.contains { $0.isUppercase }
        let hasDigit = text.contains { $0.isNumber }
        return hasLower && hasUpper && hasDigit
    }

    /// `'name'` for messages, unless it looks like a secret.
    package static func quoted(_ name: String) -> String {
        looksLikeSecret(name) ? "(a name that looks like a secret, not shown)" : "'\(name)'"
    }
}
