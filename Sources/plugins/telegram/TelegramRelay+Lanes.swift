import PiRelaySDK

extension TelegramRelay {
    /// A chat's questions, finals and their closing keep their order in a lane of their own, its
    /// notices in another, beside other chats' lanes; notifications (live views, typing) wait
    /// behind no delivery. Each write then waits in the chat's send queue, where the most urgent
    /// goes first: a question never waits for the notices or live views that came before it.
    public func lane(of method: String, params: JSONValue) -> String {
        guard let target = params["target"], let channel = target["channel"]?.stringValue, !channel.isEmpty else { return "" }
        let chat = target["thread"]?.stringValue ?? channel
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
