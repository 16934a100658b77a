/// A session's open questions (pi's dialogs and the approval gates' questions), by id, and the
/// ones an earlier daemon left open, which died with its pi. Bookkeeping only: the session
/// answers pi and tells the chats.
struct QuestionBook {
    private var open: [String: PendingQuestion] = [:]
    /// The dialogs that were open when an earlier daemon died.
    let interrupted: [PendingQuestion]

    init(interrupted: [PendingQuestion] = []) {
        self.interrupted = interrupted
    }

    var count: Int { open.count }
    var isEmpty: Bool { open.isEmpty }

    /// Oldest first.
    var sorted: [PendingQuestion] { open.values.sorted { $0.askedAt < $1.askedAt } }

    subscript(id: String) -> PendingQuestion? { open[id] }

    mutating func ask(_ question: PendingQuestion) {
        open[question.id] = question
    }

    /// Closes question `id`; nil when it is no longer open (answered, expired).
    mutating func close(_ id: String) -> PendingQuestion? {
        open.removeValue(forKey: id)
    }

    /// Closes every question (pi is gone); oldest first.
    mutating func closeAll() -> [PendingQuestion] {
        let closed = sorted
        open.removeAll()
        return closed
    }
}
