/// Every method of the control socket (docs/PROTOCOL.md §9), by its wire name: the CLI sends
/// these, the daemon routes them, the extension speaks the terminal ones. A name that is none of
/// them is answered `method_not_found`.
public enum ControlMethod: String, Sendable, CaseIterable {
    /// Is the daemon there: its version and pid.
    case ping, version
    /// The daemon's status: plugins, sessions, bindings, notes.
    case status
    /// The plugins and their state.
    case plugins
    /// Scan the plugins folder again.
    case pluginsReload = "plugins.reload"
    /// Restart one plugin.
    case pluginsRestart = "plugins.restart"
    /// A request or delivery to one plugin, for debugging.
    case pluginsCall = "plugins.call"
    /// A pairing code for a messenger user; streams until claimed.
    case pair
    /// A pairing code that binds the claiming chat to a session.
    case pairSession = "pair.session"
    /// Remove a paired user.
    case usersRevoke = "users.revoke"
    /// A terminal pi attaches its session through the extension.
    case attach
    /// Shut the daemon down.
    case stop
    /// The sessions, and a new one.
    case sessions, new
    /// A session's events as they come.
    case stream
    /// Open questions and pending approvals.
    case questions, approvals
    /// Prompts: as a new turn, a steer of the running one, a follow-up after it.
    case send, steer
    case followUp = "follow-up"
    /// One pi command each.
    case abort, compact, model, thinking, state, stats, last, commands
    case newConversation = "new-conversation"
    /// What happened in a session.
    case history
    /// Answer or cancel a question.
    case answer, cancel
    /// From the extension: a gated tool call asks, and says how it was decided.
    case approval
    case approvalDecided = "approval-decided"
    /// From the extension: a notice, and a file for the session's chats.
    case relayNotify = "relay-notify"
    case relayFile = "relay-file"
    /// From the extension: start a session for the agent.
    case spawnSession = "spawn-session"
    /// Rename, end; images and files of a session.
    case rename, end, images, file
    /// Scheduled prompts: add one to a session (`schedule` holds the person's words), list them,
    /// remove one by number.
    case scheduleAdd = "schedule.add"
    case scheduleList = "schedule.list"
    case scheduleRemove = "schedule.remove"

    /// The methods one session's control answers (`SessionControl`).
    public static let sessionMethods: Set<ControlMethod> = [
        .sessions, .new, .send, .steer, .followUp, .abort, .compact, .stream, .history, .questions, .answer, .cancel, .rename, .end, .model,
        .thinking, .state, .stats, .last, .commands, .newConversation, .file, .images, .approval, .approvalDecided, .approvals, .relayNotify,
        .relayFile,
        .spawnSession,
    ]

    /// The methods that are one pi command each.
    public static let piCommands: Set<ControlMethod> = [.abort, .compact, .newConversation, .model, .thinking, .state, .stats, .last, .commands]
}
