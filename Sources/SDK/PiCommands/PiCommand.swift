/// A command the daemon sends to `pi --mode rpc` (pi-rpc spec §2), typed so that nothing writes
/// pi's wire by hand: `type` and the fields of each, as pi's `RpcCommand` names them. The `id`
/// is the sender's (`PiSession` numbers its commands).
public enum PiCommand: Sendable, Equatable {
    /// A user message. `streamingBehavior` says what pi does with it while a run goes on: always
    /// sent, so a busy agent queues it instead of refusing it.
    case prompt(message: String, images: [JSONValue] = [], streamingBehavior: PiStreamingBehavior)
    /// A message for the running turn.
    case steer(message: String, images: [JSONValue] = [])
    /// A message for after the run.
    case followUp(message: String, images: [JSONValue] = [])
    /// Stop the run; answered once the agent is idle.
    case abort
    /// Summarise the conversation so far (aborts a running agent first).
    case compact(customInstructions: String? = nil)
    /// A new conversation in the same session (aborts a running agent first).
    case newSession
    case getState
    case getSessionStats
    case getLastAssistantText
    /// The session's slash commands: extensions', prompt templates' and skills'.
    case getCommands
    /// `modelId` as pi spells it.
    case setModel(provider: String, modelID: String)
    /// `off`, `minimal`, `low`, `medium`, `high` or `xhigh`; pi clamps it to the model's.
    case setThinkingLevel(String)
    /// Trimmed by pi; an empty name is an error.
    case setSessionName(String)
    /// The answer to an extension's dialog (§4): pi sends no response to it.
    case extensionUIResponse(id: String, PiUIAnswer)

    /// The wire `type`.
    public var type: String {
        switch self {
        case .prompt: "prompt"
        case .steer: "steer"
        case .followUp: "follow_up"
        case .abort: "abort"
        case .compact: "compact"
        case .newSession: "new_session"
        case .getState: "get_state"
        case .getSessionStats: "get_session_stats"
        case .getLastAssistantText: "get_last_assistant_text"
        case .getCommands: "get_commands"
        case .setModel: "set_model"
        case .setThinkingLevel: "set_thinking_level"
        case .setSessionName: "set_session_name"
        case .extensionUIResponse: "extension_ui_response"
        }
    }

    /// The command as pi reads it, `type` included and `id` left to the sender.
    public var json: JSONValue {
        var object: JSONValue = ["type": .string(type)]
        switch self {
        case .prompt(let message, let images, let behavior):
            object["message"] = .string(message)
            if !images.isEmpty { object["images"] = .array(images) }
            object["streamingBehavior"] = .string(behavior.rawValue)
        case .steer(let message, let images), .followUp(let message, let images):
            object["message"] = .string(message)
            if !images.isEmpty { object["images"] = .array(images) }
        case .compact(let instructions):
            object["customInstructions"] = instructions.map { .string($0) }
        case .setModel(let provider, let modelID):
            object["provider"] = .string(provider)
            object["modelId"] = .string(modelID)
        case .setThinkingLevel(let level): object["level"] = .string(level)
        case .setSessionName(let name): object["name"] = .string(name)
        case .extensionUIResponse(let id, let answer):
            object["id"] = .string(id)
            switch answer {
            case .value(let value): object["value"] = .string(value)
            case .confirmed(let confirmed): object["confirmed"] = .bool(confirmed)
            case .cancelled: object["cancelled"] = true
            }
        case .abort, .newSession, .getState, .getSessionStats, .getLastAssistantText, .getCommands: break
        }
        return object
    }
}
