import FoundationEssentials
import Logging
import PiRelaySDK

/// What every messenger relay holds beside its service's client: its log, its state folder, who
/// may talk to the bot, whether it takes inbound traffic now (a federation's lease), and when it
/// started.
package struct MessengerCore: Sendable {
    package let logger: Logger
    package let store: StateStore
    package let allowlist: Allowlist
    package let ingress: IngressGate
    let started = Date()

    /// The allowlist joins the configured users and the supervisor's paired ones; an empty one is
    /// warned about once, at start.
    package init(context: PluginContext, settings: MessengerSettings, messenger: String) {
        logger = context.logger
        store = StateStore(directory: context.stateDir)
        allowlist = Allowlist(configured: settings.allowedUsers, supervisor: context.welcome.allowedUsers)
        ingress = IngressGate(welcome: context.welcome.ingress, contact: context.contact)
        allowlist.warnIfEmpty(messenger: messenger, checkOnly: context.welcome.checkOnly, logger: logger)
    }

    /// The `status` figures every messenger reports (`allowedUsers`, `uptimeSeconds`) joined to
    /// the messenger's own.
    package func status(_ own: [String: JSONValue]) -> JSONValue {
        var figures = own
        figures["allowedUsers"] = JSONValue(allowlist.count)
        figures["uptimeSeconds"] = JSONValue(Int(Date().timeIntervalSince(started)))
        return .object(figures)
    }
}
