import PiRelaySDK

extension Doctor {
    /// For each messenger that is set up (a section in config.yaml or a token): its token is
    /// good with the service, the plugin has nothing to warn of (intents, permissions), and
    /// somebody may use it.
    /// `withoutSetup`: messengers on that need none (`web`); with one, none set up is no failure.
    package func messengerChecks(_ loaded: LoadedConfig, messengers: [SetupMessenger], withoutSetup: [String] = []) async -> [DoctorCheck] {
        let environment = childEnvironment(loaded)
        let paired = (try? PairedUsers.load(path: PairedUsers.path(stateDir: home.stateDir))) ?? PairedUsers(path: "")
        var checks: [DoctorCheck] = []
        var any = false
        for kind in messengers {
            let name = kind.name
            let section = loaded.config.pluginSections[name]
            guard let variable = kind.tokenVariable(section) else { continue }
            let token = environment[variable].flatMap { $0.isEmpty ? nil : $0 }
            guard section != nil || token != nil else { continue }
            any = true
            let title = "\(kind.title) (\(name))"
            guard let token else {
                // The environment wins over .env even when empty (ConfigLoader): say so, or
                // `setup` would save a token nothing reads.
                if self.environment[variable]?.isEmpty == true {
                    checks.append(
                        .fail(
                            "messenger:\(name)", title, "no token: \(variable) is set but empty in the environment, which wins over .env",
                            fix: "unset \(variable)"))
                } else {
                    checks.append(.fail("messenger:\(name)", title, "no token: \(variable) is not set", fix: "pi-relayd setup \(name)"))
                }
                continue
            }
            var pluginEnvironment = environment
            pluginEnvironment[variable] = token
            do {
                let identity = try await MessengerIdentityCheck.identity(
                    plugin: kind.path, name: name, config: loaded.config, environment: pluginEnvironment, checkSetup: true)
                let who = identity.username.map { "@\($0)" } ?? identity.name
                checks.append(.pass("messenger:\(name)", title, "the token is good: \(who) (\(identity.id))"))
                for (index, problem) in identity.problems.enumerated() {
                    checks.append(.fail("messenger:\(name):\(index + 1)", "\(title) settings", problem, fix: problem))
                }
            } catch {
                // Exported in the shell, the token wins over .env, and `setup` would check that
                // same token again: it must go first.
                let exported = self.environment[variable].map { !$0.isEmpty } == true
                let fix =
                    error.remote?.code != .notAuthorized
                    ? "check the network, proxy and apiBase settings of \(name)"
                    : exported
                        ? "unset \(variable) (exported in your shell, it wins over .env), then pi-relayd setup \(name) with a new token"
                        : "pi-relayd setup \(name) with a new token"
                checks.append(.fail("messenger:\(name)", title, error.description, fix: fix))
            }
            let allowed = Allowlist(section: section, messenger: name, environment: environment).users.union(paired.ids(messenger: name))
            if allowed.isEmpty {
                checks.append(
                    .fail(
                        "allowlist:\(name)", "\(kind.title) allowlist", "nobody may use the bot",
                        fix: "pi-relayd pair \(name), or list user ids in \(name).allowedUsers"))
            } else {
                checks.append(.pass("allowlist:\(name)", "\(kind.title) allowlist", "\(allowed.count) user(s)"))
            }
        }
        if !any, !withoutSetup.isEmpty {
            checks.append(
                .pass(
                    "messengers", "messengers",
                    "\(withoutSetup.joined(separator: ", ")) (no setup needed); for a chat app too: pi-relayd setup \(messengers.first?.name ?? "NAME")"
                ))
        } else if !any {
            checks.append(
                .fail(
                    "messengers", "messengers", "none is set up: sessions can be used from the terminal only",
                    fix: messengers.first.map { first in
                        "pi-relayd setup \(first.name)"
                            + (messengers.count > 1 ? " (or \(messengers.dropFirst().map(\.name).joined(separator: ", ")))" : "")
                    } ?? "install a messenger plugin (make install), then pi-relayd setup NAME"))
        }
        return checks
    }
}
