extension PiSettings {
    package init(_ section: ConfigSection, home: String?) throws(ConfigError) {
        self.init()
        // A name is looked up in PATH; `~/bin/pi` is in the home folder, as in a shell.
        command = try section.value("command", default: command) { f throws(ConfigError) in
            let written = try f.nonEmptyString()
            return written.hasPrefix("~/") ? try f.absolutePath(home: home) : written
        }
        args = try section.value("args", default: args) { f throws(ConfigError) in
            var result: [String] = []
            for item in try f.list("a list of arguments") { result.append(try item.text("an argument")) }
            return result
        }
        env = try section.value("env", default: env) { f throws(ConfigError) in try Self.environment(f) }
        agentDir = try section.value("agentDir", default: nil) { f throws(ConfigError) in try f.absolutePath(home: home) }
        startTimeout = try section.value("startTimeoutSeconds", default: startTimeout) { f throws(ConfigError) in
            try f.seconds(allowZero: false)
        }
        loadsExtension = try section.value("extension", default: loadsExtension) { field throws(ConfigError) in try field.bool() }
        dialogTimeout = try section.value("dialogTimeoutSeconds", default: nil) { field throws(ConfigError) in
            let timeout = try field.seconds(allowZero: true)
            return timeout == .zero ? nil : timeout
        }
    }

    /// `NAME: value` pairs; values are taken as written, so `PORT: 8080` is the text "8080".
    private static func environment(_ field: ConfigField) throws(ConfigError) -> [String: String] {
        guard let pairs = field.node.pairs else { throw field.mismatch("a map of variable names to values") }
        var result: [String: String] = [:]
        for pair in pairs {
            guard case .scalar(let name, _) = pair.key.content, ConfigField.isEnvironmentName(name) else {
                throw ConfigError(
                    .invalidValue, file: field.file, at: pair.key.mark,
                    "\(field.path) keys must be environment variable names (letters, digits and _)")
            }
            let value = ConfigField(node: pair.value, path: "\(field.path).\(name)", file: field.file)
            result[name] = try value.text("text (quote it if needed)")
        }
        return result
    }
}
