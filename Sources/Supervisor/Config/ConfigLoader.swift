/// Reads `$PI_RELAYD_HOME/config.yaml` and `$PI_RELAYD_HOME/.env` into a `LoadedConfig`.
///
/// Nothing here touches the process environment: the daemon applies `dotenv` itself. Every error
/// and warning names files, keys and variables, never a secret value.
package enum ConfigLoader {
    /// Top-level keys always taken as plugin sections, whether or not the plugin is installed:
    /// the bundled plugins and the messengers people are likely to add.
    package static let alwaysAcceptedPlugins: Set<String> = ["discord", "formatter", "attachments", "telegram", "slack", "web", "federation"]

    /// - Parameters:
    ///   - home: the pi-relayd home directory (`Home.root`).
    ///   - knownPlugins: names of the installed plugins; their top-level sections are passed
    ///     through to them.
    ///   - environment: the process environment; it wins over .env.
    package static func load(
        home: String, knownPlugins: Set<String>, environment: [String: String],
        fileSystem: ConfigFileSystem = .live
    ) throws(ConfigError) -> LoadedConfig {
        let root = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
        let configPath = root + "/config.yaml"
        let dotenvPath = root + "/.env"
        var result = LoadedConfig(config: Config())

        if let file = try fileSystem.readFile(configPath) {
            try file.checkOwner(userID: fileSystem.userID)
            try file.checkNotWritableByOthers()
            let node = try parseYAML(file)
            try checkSecrets(in: node, of: file, warnings: &result.warnings)
            result.config = try Config(
                root: node, file: configPath,
                pluginNames: knownPlugins.union(alwaysAcceptedPlugins),
                home: environment["HOME"], warnings: &result.warnings)
            result.path = configPath
            if node?.isNull ?? true {
                result.notConfigured.append("config.yaml is empty: using defaults")
            }
        } else {
            result.notConfigured.append("no config.yaml: using defaults (create \(configPath) to change them)")
        }

        if let file = try fileSystem.readFile(dotenvPath) {
            try file.checkOwner(userID: fileSystem.userID)
            try file.checkPrivate()
            var seen: [String: Int] = [:]
            for entry in try DotEnv.parse(file.bytes, file: dotenvPath) {
                if let first = seen[entry.key] {
                    result.warnings.append(
                        "\(dotenvPath):\(entry.line):1: \(entry.key) is set again (first on line \(first)); the last value is used")
                }
                seen[entry.key] = seen[entry.key] ?? entry.line
                if environment[entry.key] == nil { result.dotenv[entry.key] = entry.value }
            }
        }

        result.notConfigured += notConfigured(result.config, knownPlugins: knownPlugins)
        return result
    }

    package static func parseYAML(_ file: ConfigFile) throws(ConfigError) -> YAMLNode? {
        do {
            return try YAMLReader.parse(file.bytes)
        } catch {
            throw ConfigError(.syntax, file: file.path, at: error.mark, error.message)
        }
    }

    /// A config.yaml with a secret written in it must be private; either way each such key gets a
    /// warning pointing at the better place for it.
    /// Where a secret's variable is named: `discord.token` → `discord.tokenEnv`; a `…Env` key
    /// holding the secret itself is that place already.
    private static func variableKey(_ path: String) -> String {
        path.hasSuffix("Env") ? path : path + "Env"
    }

    private static func checkSecrets(
        in node: YAMLNode?, of file: ConfigFile,
        warnings: inout [String]
    ) throws(ConfigError) {
        let secrets = node?.secretLiterals() ?? []
        guard let first = secrets.first else { return }
        let fix =
            first.path.hasPrefix("pi.env.")
            ? "or move \(first.path.dropFirst("pi.env.".count)) to .env"
            : first.path.hasPrefix("pi.args")
                ? "or give it to pi through .env (the variable pi reads, such as ANTHROPIC_API_KEY) instead of an argument"
                : "or move the secret to .env and name its variable in \(Self.variableKey(first.path))"
        try file.checkPrivate(why: "it holds a secret (\(first.path) at line \(first.mark.line))", otherFix: fix)
        for secret in secrets {
            let advice =
                secret.path.hasPrefix("pi.env.")
                ? "move \(secret.path.dropFirst("pi.env.".count)) to .env, whose variables reach pi too"
                : secret.path.hasPrefix("pi.args")
                    ? "give it to pi through .env (the variable pi reads) instead of an argument"
                    : "put it in .env and name the variable in \(Self.variableKey(secret.path)) instead"
            warnings.append("\(file.path):\(secret.mark): \(secret.path) is a secret written in config.yaml; \(advice)")
        }
    }
}
