import PiRelaySDK

/// The dispatches the relay acts on, decoded; everything else is `other`.
package enum GatewayEvent: Sendable {
    case ready(ReadyInfo)
    case resumed
    case messageCreate(IncomingMessage)
    case interactionCreate(Interaction)
    /// THREAD_CREATE / THREAD_UPDATE, and the active threads listed in GUILD_CREATE.
    case threads([ThreadInfo])
    case threadDeleted(id: String)
    case other(String)

    /// nil when a known event's payload lacks what the relay needs (logged by the caller).
    package static func decode(name: String, data: JSONValue) -> GatewayEvent? {
        switch name {
        case "READY": return ReadyInfo(data).map(GatewayEvent.ready)
        case "RESUMED": return .resumed
        case "MESSAGE_CREATE": return IncomingMessage(data).map(GatewayEvent.messageCreate)
        case "INTERACTION_CREATE": return Interaction(data).map(GatewayEvent.interactionCreate)
        case "THREAD_CREATE", "THREAD_UPDATE": return ThreadInfo(data).map { .threads([$0]) }
        case "THREAD_DELETE": return data["id"]?.stringValue.map { .threadDeleted(id: $0) }
        case "GUILD_CREATE", "THREAD_LIST_SYNC":
            return .threads((data["threads"]?.arrayValue ?? []).compactMap(ThreadInfo.init))
        default: return .other(name)
        }
    }
}
