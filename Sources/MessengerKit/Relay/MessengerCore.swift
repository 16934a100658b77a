import FoundationEssentials
import Logging
import PiRelaySDK

/// What every messenger relay holds beside its service's client: its log, its state folder, who
/// may talk to the bot, whether it takes inbound traffic now (a federation's lease), and when it
/// started. Public for `CoreMessengerRelay`; only the kit's messengers make one.
public struct MessengerCore: Sendable {
    public let logger: Logger
    package let store: StateStore
    public let allowlist: Allowlist
    package let ingress: IngressGate
    /// The service refused the token mid-run: the plugin ends as not configured (`TokenRefusal`).
    package let tokenRefusal = TokenRefusal()
    /// For the inbox (`Inbox`'s `credentialsRefused`): whether the token was refused in this run.
    package var credentialsRefused: @Sendable () -> Bool { { [tokenRefusal] in tokenRefusal.isRefused } }
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

    /// Reads the messenger's section (secrets from the process's environment), then makes the
    /// core from its settings: what each relay's start begins with.
    package static func load<Config: MessengerConfig>(_ type: Config.Type, context: PluginContext, messenger: String) throws -> (Config, Self) {
        let config = try Config.load(context.config, environment: ProcessInfo.processInfo.environment)
        return (config, MessengerCore(context: context, settings: config.settings, messenger: messenger))
    }

    /// The `status` figures every messenger reports (`allowedUsers`, `uptimeSeconds`, and as
    /// `problems` the state files the disk refused) joined to the messenger's own.
    package func status(_ own: [String: JSONValue]) async -> JSONValue {
        var figures = own
        figures["allowedUsers"] = JSONValue(allowlist.count)
        figures["uptimeSeconds"] = JSONValue(Int(Date().timeIntervalSince(started)))
        figures["problems"] = .array(await store.problems.map { .string($0) })
        return .object(figures)
    }

    /// The relay's sign-in at start: a token the service refuses (`notAuthorized`, as
    /// `SignInError.signingIn` says it) ends the plugin as not configured, with that text.
    package func signedIn<T: Sendable>(_ signIn: () async throws -> T) async throws -> T {
        do { return try await signIn() } catch let error as RemoteError where error.code == .notAuthorized {
            throw PluginExit.notConfigured(error.message)
        }
    }
}
