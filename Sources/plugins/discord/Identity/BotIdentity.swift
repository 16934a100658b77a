import PiRelaySDK

/// `messenger.identity`: the bot user and its application, read with the plugin's own token and
/// proxy, and the invite URL that asks for exactly what the plugin uses.
struct BotIdentity: Sendable {
    let rest: DiscordREST
    /// The guilds commands are registered in (`discord.guilds`); none means globally.
    let guilds: [String]

    /// `bot` to be in servers, `applications.commands` for the slash commands.
    static let scopes = ["bot", "applications.commands"]

    /// What the plugin does in a channel: see it and its history (replies reference the user's
    /// message), post, upload files, open threads for new sessions and post in them.
    static let permissions: [(name: String, bit: Int)] = [
        ("View Channels", 10), ("Send Messages", 11), ("Attach Files", 15), ("Read Message History", 16),
        ("Create Public Threads", 35), ("Send Messages in Threads", 38),
    ]

    static var permissionBits: Int { permissions.reduce(0) { $0 | (1 << $1.bit) } }

    /// Application flags that say the Message Content intent is switched on (for a verified app,
    /// or an unverified one in under 100 servers).
    static let messageContentFlags = (1 << 18) | (1 << 19)

    static func inviteURL(application: String) -> String {
        "https://discord.com/oauth2/authorize?client_id=\(application)&scope=\(scopes.joined(separator: "+"))&permissions=\(permissionBits)"
    }

    func check(_ params: MessengerIdentityParams = MessengerIdentityParams()) async throws(RemoteError) -> MessengerIdentity {
        let user: JSONValue
        let application: JSONValue
        do {
            user = try await rest.send(.currentUser) ?? [:]
            application = try await rest.send(.currentApplication) ?? [:]
        } catch let error as DiscordAPIError {
            throw Self.remote(error, base: rest.base)
        } catch {
            throw RemoteError(code: .internal, message: "\(error)")
        }
        guard let id = user["id"]?.stringValue, let applicationID = application["id"]?.stringValue else {
            throw RemoteError(code: .internal, message: "Discord's answer had no bot or application id")
        }
        let name = user["global_name"]?.stringValue ?? user["username"]?.stringValue ?? id
        let flags = application["flags"]?.intValue ?? 0
        var notes = [
            "Invite asks for: \(Self.permissions.map(\.name).joined(separator: ", ")) (scopes \(Self.scopes.joined(separator: ", ")))."
        ]
        var problems: [String] = []
        if flags & Self.messageContentFlags != 0 {
            notes.append("The Message Content intent is on: the bot can read what users write.")
        } else {
            problems.append(
                "Switch on the Message Content intent: Developer Portal → your app → Bot → Privileged Gateway Intents → Message Content Intent. Without it Discord refuses the connection (4014)."
            )
        }
        if params.checkSetup {
            problems += await missingCommands(application: applicationID)
            problems += await missingPermissions()
        }
        return MessengerIdentity(
            id: id, name: name, username: user["username"]?.stringValue, applicationID: applicationID,
            link: Self.inviteURL(application: applicationID), notes: notes, problems: problems)
    }

    /// The slash commands the plugin registers that Discord does not list, where it registers
    /// them (each configured guild, else globally), as problems with their fix.
    func missingCommands(application: String) async -> [String] {
        let wanted = Set(SlashCommand.all.map(\.name))
        let places: [(label: String, endpoint: Endpoint)] =
            guilds.isEmpty
            ? [("globally", .listGlobalCommands(application: application))]
            : guilds.map { ("in guild \($0)", .listGuildCommands(application: application, guild: $0)) }
        var problems: [String] = []
        for place in places {
            let listed: JSONValue?
            do { listed = try await rest.send(place.endpoint) } catch {
                problems.append(
                    "Cannot list the slash commands \(place.label) (\(error)): is the bot in that guild, invited with the applications.commands scope?"
                )
                continue
            }
            let registered = Set((listed?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
            let missing = wanted.subtracting(registered).sorted()
            guard !missing.isEmpty else { continue }
            problems.append(
                "Slash commands missing \(place.label): \(missing.map { "/" + $0 }.joined(separator: ", ")). The discord plugin registers them when it "
                    + "starts: pi-relayd plugins restart discord (global commands can take a while to show in clients).")
        }
        return problems
    }

    /// The permissions the plugin needs that the bot lacks, per guild it is in (Administrator
    /// grants them all).
    func missingPermissions() async -> [String] {
        let guilds: JSONValue?
        do { guilds = try await rest.send(.myGuilds) } catch { return ["Cannot list the bot's servers (\(error))."] }
        var problems: [String] = []
        for guild in guilds?.arrayValue ?? [] {
            guard let granted = guild["permissions"]?.stringValue.flatMap(UInt64.init) else { continue }
            if granted & (1 << 3) != 0 { continue }
            let missing = Self.permissions.filter { granted & (1 << UInt64($0.bit)) == 0 }.map(\.name)
            guard !missing.isEmpty else { continue }
            let name = guild["name"]?.stringValue ?? "?"
            problems.append(
                "In the server \(name) (\(guild["id"]?.stringValue ?? "?")) the bot lacks: \(missing.joined(separator: ", ")). "
                    + "Give its role these permissions, or remove it and invite it again with the invite link.")
        }
        return problems
    }

    /// What the owner should do about a failed check; never the token.
    static func remote(_ error: DiscordAPIError, base: String) -> RemoteError {
        switch error.status {
        case 401:
            return RemoteError(
                code: .notAuthorized,
                message:
                    "Discord refused the bot token (401 Unauthorized): it is wrong, or it was reset. Copy it again from the Developer Portal (your app → Bot → Reset Token)"
            )
        case 0:
            return RemoteError(code: .unavailable, message: "could not reach Discord at \(base): \(error.message)")
        default:
            return RemoteError(code: .internal, message: "\(error)")
        }
    }
}
