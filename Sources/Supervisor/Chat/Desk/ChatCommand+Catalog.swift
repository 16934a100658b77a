import PiRelaySDK

extension ChatCommand {
    /// Every chat command as text, for `/help` on a messenger that registered no menu of its own.
    package static let catalog: [MessengerCommand] = [
        MessengerCommand(name: "sessions", description: "List the sessions and pick one"),
        MessengerCommand(name: "use", usage: "/use N|NAME|ALIAS", description: "Make a session the active one here"),
        MessengerCommand(name: "alias", usage: "/alias NAME|clear", description: "Name the active session for this chat"),
        MessengerCommand(name: "new", usage: "/new DIR [NAME]", description: "Start a session"),
        MessengerCommand(name: "status", description: "The session's state"),
        MessengerCommand(name: "stop", description: "Stop the running turn"),
        MessengerCommand(name: "steer", usage: "/steer TEXT", description: "Change course mid-run"),
        MessengerCommand(name: "followup", usage: "/followup TEXT", description: "Queue a prompt for after the run"),
        MessengerCommand(name: "progress", usage: "/progress quiet|normal|verbose|completion-only", description: "How much of a run this chat sees"),
        MessengerCommand(name: "recent", usage: "/recent [N]", description: "The last N activity lines"),
        MessengerCommand(name: "summary", description: "A short account of the last run"),
        MessengerCommand(name: "full", description: "The last answer, whole"),
        MessengerCommand(name: "pause", description: "Stop delivery to this chat; prompts are refused"),
        MessengerCommand(name: "resume", description: "Deliver again, with a summary of what was missed"),
        MessengerCommand(name: "mentions", usage: "/mentions on|off", description: "Ping whoever asked when the agent waits or a long run ends"),
        MessengerCommand(name: "compact", description: "Compact the conversation"),
        MessengerCommand(name: "model", usage: "/model [PROVIDER/MODEL]", description: "Show or set the model"),
        MessengerCommand(name: "thinking", usage: "/thinking [off|minimal|low|medium|high|xhigh]", description: "Show or set the thinking level"),
        MessengerCommand(name: "rename", usage: "/rename NAME", description: "Rename the session"),
        MessengerCommand(name: "reset", description: "Start a new conversation in this session"),
        MessengerCommand(name: "approvals", description: "Recent approval decisions"),
        MessengerCommand(name: "file", usage: "/file PATH [CAPTION]", description: "Send a workspace file"),
        MessengerCommand(name: "send-image", usage: "/send-image PATH", description: "Send a workspace image"),
        MessengerCommand(name: "images", description: "Images of the last run"),
        MessengerCommand(name: "cancel", description: "Cancel the open question"),
        MessengerCommand(name: "to", usage: "/to SESSION TEXT", description: "Prompt another session"),
        MessengerCommand(
            name: "schedule", usage: "/schedule every 1h|at 09:00|cron … PROMPT, list, cancel N", description: "Prompt the session on a schedule"),
        MessengerCommand(name: "end", description: "End this session"),
        MessengerCommand(name: "forget", usage: "/forget N|NAME", description: "Forget an offline session"),
        MessengerCommand(name: "disconnect", description: "Stop watching here"),
        MessengerCommand(name: "help", description: "This list"),
    ]
}
