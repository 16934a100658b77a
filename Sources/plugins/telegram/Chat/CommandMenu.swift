import Logging
import PiRelaySDK

/// The supervisor's chat commands in Telegram's "/" menu (`setMyCommands`), for private chats
/// and for groups. The commands themselves arrive as plain messages, which the supervisor parses.
struct CommandMenu: Sendable {
    static let commands: [(String, String)] = [
        ("sessions", "List sessions and pick one"), ("use", "Watch a session: /use N or NAME"), ("new", "Start a session: /new DIR [NAME]"),
        ("stop", "Stop the running turn"), ("steer", "Change course mid-run: /steer TEXT"), ("followup", "Queue a prompt: /followup TEXT"),
        ("status", "The session's state"), ("model", "Show or set the model"), ("thinking", "Show or set the thinking level"),
        ("compact", "Compact the conversation"), ("rename", "Rename the session: /rename NAME"),
        ("reset", "Start a new conversation in this session"),
        ("approvals", "Recent approval decisions"), ("file", "Send a workspace file: /file PATH"),
        ("send_image", "Send a workspace image: /send_image PATH"),
        ("images", "Images of the last run"),
        ("cancel", "Cancel the open question"), ("end", "End this session"), ("forget", "Forget an offline session: /forget N"),
        ("alias", "Name the active session here: /alias NAME"),
        ("to", "Prompt another session: /to NAME TEXT"), ("disconnect", "Stop watching here"),
        ("progress", "How much of a run you see: /progress quiet|normal|verbose|completion-only"),
        ("recent", "The last activity lines: /recent [N]"), ("summary", "A short account of the last run"),
        ("full", "The last answer, whole"), ("pause", "Stop delivery here until /resume"),
        ("resume", "Deliver again, with what was missed"), ("mentions", "Pings when the agent waits: /mentions on|off"),
        ("schedule", "Prompt on a schedule: /schedule every 1h TEXT"), ("help", "The commands, one line each"),
    ]

    /// The menu as the hello lists it for `/help`.
    static var entries: [MessengerCommand] { commands.map { MessengerCommand(name: $0.0, description: $0.1) } }

    let api: BotAPI
    let logger: Logger

    func register() async {
        let list: JSONValue = .array(Self.commands.map { ["command": .string($0.0), "description": .string($0.1)] })
        for scope in ["all_private_chats", "all_group_chats"] {
            do { try await api.call("setMyCommands", ["commands": list, "scope": ["type": .string(scope)]]) } catch {
                logger.warning("registering the command menu for \(scope): \(error)")
            }
        }
    }
}
