/// A chat another machine owns, as the session's machine names it: its deliveries go to the
/// federation plugin, which reads where they belong from the channel. The messenger is
/// `MACHINE/MESSENGER` (no plugin's file name holds a `/`) and the channel
/// `MACHINE/MESSENGER/CHANNEL`; machine and messenger names hold no `/`.
public struct RemoteChannel: Sendable, Equatable {
    public var machine: String
    public var messenger: String
    public var channel: String

    public init(machine: String, messenger: String, channel: String) {
        self.machine = machine
        self.messenger = messenger
        self.channel = channel
    }

    /// The messenger name the session's machine gives the chat's messenger.
    public var messengerName: String { machine + "/" + messenger }
    /// The channel as the session's machine names it.
    public var encoded: String { messengerName + "/" + channel }

    /// Reads an encoded channel; nil for a local one.
    public init?(encoded: String) {
        let parts = encoded.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(machine: String(parts[0]), messenger: String(parts[1]), channel: String(parts[2]))
    }

    /// Whether a messenger name is another machine's (`MACHINE/MESSENGER`).
    public static func isRemote(messenger: String) -> Bool { messenger.contains("/") }

    /// The machine part of a shared messenger's names: a bot every machine shares, whichever
    /// machine holds it (docs/FEDERATION.md).
    public static let anyMachine = "*"

    /// The name every machine gives a shared messenger (`*/telegram`), and the queue its
    /// deliveries wait in for whoever holds the bot.
    public static func sharedMessenger(_ messenger: String) -> String { anyMachine + "/" + messenger }

    /// Whether a messenger name is a shared messenger's (`*/telegram`).
    public static func isShared(messenger: String) -> Bool { messenger.hasPrefix(anyMachine + "/") }

    /// The messenger behind a name: `*/telegram` → `telegram`; any other name as it is.
    public static func baseMessenger(_ name: String) -> String { isShared(messenger: name) ? String(name.dropFirst(anyMachine.count + 1)) : name }
}
