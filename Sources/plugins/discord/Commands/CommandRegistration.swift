import FoundationEssentials
import Logging
import PiRelaySDK
import Synchronization

/// Registers the slash commands with bulk overwrites: in each configured guild (available at
/// once) and globally. With guilds configured, the global set is for DMs only, so guild members
/// do not see every command twice; without guilds it covers guilds and DMs.
final class CommandRegistration: Sendable {
    let rest: DiscordREST
    let store: StateStore
    let guilds: [String]
    let logger: Logger
    private let claimed = Mutex(false)

    init(rest: DiscordREST, store: StateStore, guilds: [String], logger: Logger) {
        self.rest = rest
        self.store = store
        self.guilds = guilds
        self.logger = logger
    }

    /// True the first time only: registration happens once per process.
    func claim() -> Bool {
        claimed.withLock { done in
            defer { done = true }
            return !done
        }
    }

    func register(application: String) async {
        let guildSet: JSONValue = .array(SlashCommand.all.map { $0.json(contexts: [0]) })
        let globalSet: JSONValue = .array(SlashCommand.all.map { $0.json(contexts: guilds.isEmpty ? [0, 1] : [1]) })
        let fingerprint = Digest.hex64(application + guilds.joined(separator: ",") + guildSet.serialized() + globalSet.serialized())
        if let done = store.load(CommandsRecord.self, from: CommandsRecord.file), done.fingerprint == fingerprint,
            Date().timeIntervalSince1970 - done.registeredAt < 3600
        {
            logger.info("slash commands: registered within the last hour; unchanged")
            return
        }
        var ok = true
        do {
            try await rest.send(.globalCommands(application: application), json: globalSet)
        } catch {
            ok = false
            logger.error("slash commands: global registration failed: \(error)")
        }
        for guild in guilds {
            do {
                try await rest.send(.guildCommands(application: application, guild: guild), json: guildSet)
            } catch {
                ok = false
                logger.error(
                    "slash commands: registration in guild \(guild) failed: \(error) (is the bot in that guild, invited with the applications.commands scope?)"
                )
            }
        }
        if ok {
            logger.info("slash commands: \(SlashCommand.all.count) registered globally and in \(guilds.count) guild(s)")
            await store.save(CommandsRecord(fingerprint: fingerprint, registeredAt: Date().timeIntervalSince1970), to: CommandsRecord.file)
        }
    }
}
