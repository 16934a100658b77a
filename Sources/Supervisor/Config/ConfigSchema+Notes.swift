import PiRelaySDK

extension ConfigSchema {
    /// What a checked section leaves the plugin without: a required secret whose variable is not
    /// set, a messenger nobody may use. Only variable names appear, never their values.
    /// A plugin `pi-relayd setup` knows (it declares its setup text) is named with the command
    /// that does it for a newcomer.
    package func notes(plugin: String, section: JSONValue, hello: Hello, environment: [String: String]) -> [String] {
        var notes: [String] = []
        let setup = hello.setup == nil ? "" : ", or run pi-relayd setup \(plugin)"
        for (key, secret) in secrets where secret.required {
            let variable = section[key]?.stringValue ?? secret.variable
            guard (environment[variable] ?? "").trimmed().isEmpty else { continue }
            notes.append(
                variable == secret.variable
                    ? "\(plugin): no \(secret.name) (set \(variable) or \(plugin).\(key)\(setup))"
                    : "\(plugin): no \(secret.name) (set \(variable), the variable named by \(plugin).\(key)\(setup))")
        }
        if hello.roles.contains("messenger"), keys.contains(where: { $0.name == "allowedUsers" }),
            Allowlist(section: section, messenger: plugin, environment: environment).users.isEmpty
        {
            let service = hello.setup?.title ?? plugin
            notes.append(
                "\(plugin): no allowed users configured, so only users paired with pi-relayd pair \(plugin) get answers (or add \(service) user ids to \(plugin).allowedUsers or \(Allowlist.environmentName(plugin)))"
            )
        }
        return notes
    }
}
