import PiRelaySDK
import Synchronization

/// The plugin sections of config.yaml: as written, and as checked against the schema each plugin
/// declares in its hello. The check runs at every handshake, before the welcome; what it accepted
/// is what the chat desk and pairing read (ids as strings, `~` expanded), and its notes (a missing
/// token, nobody allowed) join `pi-relayd status`.
package final class PluginSections: Sendable {
    /// A section checked: what the plugin gets, and what to tell the owner.
    package struct Checked: Sendable, Equatable {
        package var section: JSONValue
        /// Unknown keys, with their line and column.
        package var warnings: [String]
        /// What is missing for the plugin to be useful; names of variables, never their values.
        package var notes: [String]
        /// The variables its schema says hold its secrets (a token), by name.
        package var secretVariables: [String] = []
    }

    private let written: [String: JSONValue]
    private let sources: [String: PluginSectionSource]
    private let environment: [String: String]
    private let checked = Mutex<[String: Checked]>([:])
    /// The variables holding the plugins' secrets: the bundled plugins' defaults
    /// (`BundledSecret`), the ones the sections name (`tokenEnv`, `databaseEnv`, at any depth),
    /// and, once a plugin has said hello, the ones its schema declares.
    private let secretVariables: Mutex<Set<String>>

    /// `environment` is what the plugins get (the process's, then .env's), for the notes.
    package init(config: Config, environment: [String: String]) {
        written = config.pluginSections
        sources = config.pluginSources
        self.environment = environment
        secretVariables = Mutex(Set(config.pluginSections.values.flatMap { SectionSecrets($0).variables }).union(BundledSecret.variables))
    }

    /// What a pi session is not given of the daemon's environment: a bot token or the
    /// federation's database address is its plugin's alone, and the agent can read its own
    /// environment (and be asked to, by text it reads).
    package var withheldFromPi: Set<String> { secretVariables.withLock { $0 } }

    /// `plugin`'s section checked against `hello.config`, kept for `section(_:)`; as written when
    /// the hello declares no schema. The error names the line and column of the first mistake.
    /// `isNew` is false when a restart found what the last check found, so it is logged once.
    package func check(plugin: String, hello: Hello) throws(ConfigError) -> (checked: Checked, isNew: Bool) {
        // Kept from pi before the check: a section its schema refuses parks the plugin, but the
        // token its variable holds is still in the daemon's environment.
        let declared = (hello.config?.secrets ?? []).map { key, secret in written[plugin]?[key]?.stringValue ?? secret.variable }
        secretVariables.withLock { $0.formUnion(declared) }
        var result = try Self.check(
            source: sources[plugin], written: written[plugin], plugin: plugin, hello: hello, environment: environment)
        result.secretVariables = declared
        let named = (hello.config?.secrets ?? []).compactMap { key, _ in result.section[key]?.stringValue }
        secretVariables.withLock { $0.formUnion(named + SectionSecrets(result.section).variables) }
        // Masked in logs too: a variable a schema declares secret may have a name the
        // redactor's patterns miss (`MATRIX_ACCESS`).
        Redactor.learn(variables: declared + named, environment: environment)
        let before = checked.withLock { all in
            defer { all[plugin] = result }
            return all[plugin]
        }
        return (result, before != result)
    }

    /// The check itself, pure: the same for the daemon, `doctor`, `setup` and the tests.
    package static func check(
        source: PluginSectionSource?, written: JSONValue?, plugin: String, hello: Hello, environment: [String: String]
    ) throws(ConfigError) -> Checked {
        guard let schema = hello.config else { return Checked(section: written ?? [:], warnings: [], notes: []) }
        var warnings: [String] = []
        var section: JSONValue = [:]
        if let source { section = try schema.check(source.field, home: source.home, warnings: &warnings) }
        return Checked(
            section: section, warnings: warnings, notes: schema.notes(plugin: plugin, section: section, hello: hello, environment: environment))
    }

    /// The section the plugin was last welcomed with; before its first hello, as written.
    package func section(_ plugin: String) -> JSONValue? {
        checked.withLock { $0[plugin]?.section } ?? written[plugin]
    }

    /// Whether every variable `plugin`'s schema names for a secret (its tokens) is set: the
    /// owner gave it what it needs, so a plugin that is still not configured (a token refused,
    /// at start or while it ran) is something to fix, unlike a bundled
    /// messenger nobody set up or one set up halfway.
    package func hasSecretsSet(_ plugin: String) -> Bool {
        let variables = checked.withLock { $0[plugin]?.secretVariables ?? [] }
        return !variables.isEmpty && variables.allSatisfy { !(environment[$0] ?? "").isEmpty }
    }

    /// The plugins with a section in config.yaml.
    package var names: [String] { written.keys.sorted() }

    /// The plugins whose hello was checked: their sections, and so their allowlists, are final.
    package var greeted: Set<String> { checked.withLock { Set($0.keys) } }

    /// The messengers whose bot several machines share (`federation.ingress`): the other
    /// machines' allowlists let users in too.
    package var sharedMessengers: Set<String> {
        Set((section("federation")?["ingress"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// Every checked plugin's notes, by plugin name.
    package var notes: [String] {
        checked.withLock { all in all.keys.sorted().flatMap { all[$0]?.notes ?? [] } }
    }
}
