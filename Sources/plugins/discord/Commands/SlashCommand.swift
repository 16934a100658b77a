import PiRelaySDK

/// A slash command the plugin registers, mapped 1:1 onto a `chat.command` name.
struct SlashCommand: Sendable, Equatable {
    struct Option: Sendable, Equatable {
        var name: String
        var description: String
        var required: Bool
    }

    var name: String
    var description: String
    var options: [Option]
    /// Whether the answer is only for the user who asked (deferrals use this too).
    var ephemeral: Bool

    static let all: [SlashCommand] = [
        SlashCommand(name: "sessions", description: "List the sessions and pick one for this chat", options: [], ephemeral: true),
        SlashCommand(name: "status", description: "Show the session this chat is bound to", options: [], ephemeral: true),
        SlashCommand(
            name: "new", description: "Start a new session",
            options: [
                Option(name: "cwd", description: "Working directory of the new session", required: true),
                Option(name: "name", description: "A short name for it", required: false),
            ], ephemeral: false),
        SlashCommand(
            name: "use", description: "Make a session this chat's active one (the others stay watched)",
            options: [
                Option(name: "session", description: "Session number, alias, name or id", required: true)
            ], ephemeral: false),
        SlashCommand(
            name: "alias", description: "Name this chat's active session for this chat",
            options: [
                Option(name: "name", description: "One word, or clear", required: true)
            ], ephemeral: true),
        SlashCommand(name: "stop", description: "Stop the current run", options: [], ephemeral: false),
        SlashCommand(
            name: "steer", description: "Steer the current run with a message",
            options: [
                Option(name: "text", description: "What to tell the agent now", required: true)
            ], ephemeral: false),
        SlashCommand(
            name: "followup", description: "Queue a message for after the current run",
            options: [
                Option(name: "text", description: "The follow-up prompt", required: true)
            ], ephemeral: false),
        SlashCommand(name: "compact", description: "Compact the session's context", options: [], ephemeral: false),
        SlashCommand(
            name: "model", description: "Show or switch the model",
            options: [
                Option(name: "model", description: "Model to switch to (leave empty to list)", required: false)
            ], ephemeral: true),
        SlashCommand(name: "end", description: "End the session bound to this chat", options: [], ephemeral: false),
        SlashCommand(name: "approvals", description: "Recent approval decisions of this chat's session", options: [], ephemeral: true),
        SlashCommand(
            name: "forget", description: "Remove an offline session from the list",
            options: [
                Option(name: "session", description: "Session number, alias, name or id (this chat's if empty)", required: false)
            ], ephemeral: false),
        SlashCommand(
            name: "to", description: "Send a prompt to another session without switching",
            options: [
                Option(name: "session", description: "Session number, alias, name or id", required: true),
                Option(name: "text", description: "The prompt", required: true),
            ], ephemeral: false),
        SlashCommand(name: "cancel", description: "Cancel the open question", options: [], ephemeral: true),
        SlashCommand(name: "disconnect", description: "Disconnect this chat from its session", options: [], ephemeral: true),
        SlashCommand(
            name: "progress", description: "How much of a run this chat sees",
            options: [
                Option(name: "mode", description: "quiet, normal, verbose or completion-only (empty: show it)", required: false)
            ], ephemeral: true),
        SlashCommand(
            name: "recent", description: "The session's last activity lines",
            options: [
                Option(name: "count", description: "How many lines (1-50, default 10)", required: false)
            ], ephemeral: true),
        SlashCommand(name: "summary", description: "A short account of the last run", options: [], ephemeral: true),
        SlashCommand(name: "full", description: "The last answer, whole", options: [], ephemeral: true),
        SlashCommand(name: "pause", description: "Stop delivery to this chat until /resume", options: [], ephemeral: true),
        SlashCommand(name: "resume", description: "Deliver again, with a summary of what was missed", options: [], ephemeral: true),
        SlashCommand(
            name: "mentions", description: "Ping whoever asked when the agent waits or a long run ends",
            options: [
                Option(name: "state", description: "on or off (empty: show it)", required: false)
            ], ephemeral: true),
        SlashCommand(
            name: "schedule", description: "Prompt the session on a schedule, list the schedules or cancel one",
            options: [
                Option(
                    name: "text", description: "every 1h PROMPT, at 09:00 PROMPT, cron 0 9 * * 1-5 PROMPT, cancel N (empty: list)", required: false)
            ], ephemeral: false),
        SlashCommand(name: "help", description: "The commands, one line each", options: [], ephemeral: true),
    ]

    static func named(_ name: String) -> SlashCommand? { all.first { $0.name == name } }

    /// The command as the hello lists it for `/help`: `/name <required> [optional]`.
    var menuEntry: MessengerCommand {
        let arguments = options.map { $0.required ? "<\($0.name)>" : "[\($0.name)]" }
        return MessengerCommand(name: name, usage: (["/" + name] + arguments).joined(separator: " "), description: description)
    }

    /// The registration body. `contexts`: 0 guild, 1 bot DM.
    func json(contexts: [Int]) -> JSONValue {
        var body: JSONValue = [
            "name": .string(name), "description": .string(description), "type": 1,
            "contexts": .array(contexts.map { JSONValue($0) }), "integration_types": [0],
        ]
        if !options.isEmpty {
            body["options"] = .array(
                options.map {
                    ["name": .string($0.name), "description": .string($0.description), "type": 3, "required": .bool($0.required)]
                })
        }
        return body
    }
}
