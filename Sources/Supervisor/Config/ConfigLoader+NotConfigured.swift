import FoundationEssentials
import PiRelaySDK

extension ConfigLoader {
    /// Plain-language notes on what still needs setting up in the supervisor's own sections; a
    /// plugin's (a missing token, nobody allowed) come from its schema (`PluginSections`). Only
    /// variable names appear, never their values.
    package static func notConfigured(_ config: Config, knownPlugins: Set<String>) -> [String] {
        var notes: [String] = []
        let pluginNames = knownPlugins.union(alwaysAcceptedPlugins)
        for name in config.plugins.disabled where !pluginNames.contains(name) {
            notes.append("plugins.disabled: there is no plugin called \(YAMLNode.quoted(name))")
        }
        return notes
    }
}
