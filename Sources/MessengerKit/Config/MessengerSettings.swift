import PiRelayHTTP
import PiRelaySDK

/// The keys every messenger's section has, read alike: who may talk to the bot, when it listens
/// in a shared room, and how it reaches its service.
package struct MessengerSettings: Sendable, Equatable {
    /// Configured and from the environment; empty means everyone is refused but paired users.
    package var allowedUsers: Set<String>
    /// In rooms (channels, groups), a message must mention the bot or reply to it.
    package var requireMention: Bool
    /// Rooms several machines' bots share: every message there is heard, mention or not.
    package var sharedRooms: SharedRooms
    package var apiBase: String
    package var proxy: ProxySetting

    /// The start's log line: `places` counts what is configured ("3 channel(s)"), `rooms` names
    /// where a mention is needed ("groups").
    package func starting(places: String, allowed: Int, rooms: String) -> String {
        "starting: api \(apiBase), proxy \(proxy.redacted), \(places), \(allowed) allowed user(s), "
            + "mention \(requireMention ? "required" : "not required") in \(rooms)"
    }
}

extension MessengerSection {
    /// `allowedUsers` as the messenger read them (its ids differ), then `requireMention`
    /// (default true), `sharedRooms`, `apiBase` and `proxy`.
    package func settings(allowedUsers: Set<String>, defaultAPIBase: String, environment: [String: String]) throws -> MessengerSettings {
        MessengerSettings(
            allowedUsers: allowedUsers, requireMention: try bool("requireMention", default: true), sharedRooms: sharedRooms,
            apiBase: try apiBase(default: defaultAPIBase), proxy: try proxy(environment: environment))
    }

    /// A secret from the environment variable that `key` names (default `variable`), trimmed;
    /// `missing` says what to do when it is empty, given the variable's name.
    package func secret(
        _ key: String, default variable: String, environment: [String: String], missing: (String) -> String
    ) throws -> (
        value: String, variable: String
    ) {
        let name = try string(key) ?? variable
        let value = (environment[name] ?? "").trimmed()
        guard !value.isEmpty else { throw problem(missing(name)) }
        return (value, name)
    }
}
