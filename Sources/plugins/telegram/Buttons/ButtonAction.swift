/// What a button does when pressed: a supervisor action id (`use:…`, `stop:…`), or an answer to
/// a question.
enum ButtonAction: Codable, Sendable, Equatable {
    case action(String)
    case answer(session: String, question: String, value: String?, confirmed: Bool?, cancelled: Bool)
}
