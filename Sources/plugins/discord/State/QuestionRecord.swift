/// A question posted in Discord: which session and question its buttons answer, the options
/// they stand for, and the message to edit when the question closes.
struct QuestionRecord: Codable, Sendable, Equatable {
    var sessionID: String
    var questionID: String
    var method: String
    var title: String
    var options: [String]
    var channel: String
    var messageID: String?
    var postedAt: Double
}
