import AttachmentsPlugin
import DiscordPlugin
import FormatterPlugin
import PiRelaySDK
import SlackPlugin
import TelegramPlugin

/// The hellos the bundled plugins send (`PluginRuntime` builds each from its manifest), for
/// tests of what the daemon does with them: their config schemas and setup text.
enum BundledHellos {
    static let manifests = [DiscordRelay.manifest, TelegramRelay.manifest, SlackRelay.manifest, RelayFormatter.manifest, Attachments.manifest]

    static let byName: [String: Hello] = Dictionary(
        uniqueKeysWithValues: manifests.map { manifest in
            (
                manifest.name,
                Hello(
                    name: manifest.name, version: manifest.version, roles: manifest.roles, limits: manifest.limits, description: manifest.summary,
                    dialect: manifest.dialect, commands: manifest.commands, config: manifest.config, setup: manifest.setup)
            )
        })
}
