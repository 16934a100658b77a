import PiRelaySDK

/// The answers to the latest chat messages, by messenger and message id. A messenger that
/// crashed after pi-relayd handled a message, but before it showed the answer, hands the message
/// over again from its journal; by then the handling is over, and the answer went to the instance
/// that is gone. The repeat gets the same answer (a "Started api", a "Queued" ⏳), rather than an
/// `ignored` that shows nothing. In memory: a daemon restart forgets them, and says so
/// (`HandledMessages.wasCutOff`) for a message it had not finished.
package struct RecentAnswers: Sendable {
    package static let limit = 256

    private var answers: [String: ChatMessageResult] = [:]
    private var order: [String] = []

    package init() {}

    package mutating func keep(_ result: ChatMessageResult, for key: String) {
        if answers.updateValue(result, forKey: key) == nil { order.append(key) }
        if order.count > Self.limit { answers[order.removeFirst()] = nil }
    }

    package func answer(for key: String) -> ChatMessageResult? { answers[key] }
}
