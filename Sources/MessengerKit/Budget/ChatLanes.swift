import PiRelaySDK

/// Lanes by chat and urgency, for a messenger whose writes wait in a chat's `SendQueue`: a
/// chat's questions, finals and their closing keep their order in a lane of their own, its
/// notices in another, beside other chats' lanes; notifications (live views, typing) wait behind
/// no delivery. A question is then never held up by a notice waiting for the chat's send budget,
/// and the queue still lets the most urgent write go first (each in-tree messenger's client has
/// one). Without such a queue a live view could overtake the question it shows being asked, so a
/// messenger without one keeps a single lane.
public enum ChatLanes {
    /// The lane of a delivery or notification (`Plugin.lane(of:params:)`).
    public static func lane(of method: String, params: JSONValue) -> String {
        guard let target = params["target"], let channel = target["channel"]?.stringValue, !channel.isEmpty else { return "" }
        let chat = channel + (target["thread"]?.stringValue.map { "/" + $0 } ?? "")
        switch MethodName(rawValue: method) {
        case .chatPost:
            let kind = params["kind"]?.stringValue
            return chat + (kind == ChatPostParams.Kind.question.rawValue || kind == ChatPostParams.Kind.final.rawValue ? " answers" : " notices")
        case .chatQuestionClosed:
            return chat + " answers"
        default:
            return ""
        }
    }
}
