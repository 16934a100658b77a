/// A session's open questions (pi's dialogs and the approval gates' questions), by id, and the
/// ones an earlier daemon left open, which died with its pi. Bookkeeping only: the session
/// answers pi and tells the chats.
package struct QuestionBook {
    private var open: [String: PendingQuestion] = [:]
    /// The dialogs that were open when an earlier daemon died.
    package let interrupted: [PendingQuestion]

    package init(interrupted: [PendingQuestion] = []) {
        self.interrupted = interrupted
    }

    package var count: Int { open.count }
    package var isEmpty: Bool { open.isEmpty }

    /// Oldest first.
    package var sorted: [PendingQuestion] { open.values.sorted { $0.askedAt < $1.askedAt } }

    package subscript(id: String) -> PendingQuestion? { open[id] }

    package mutating func ask(_ question: PendingQuestion) {
        open[question.id] = question
    }

    /// Closes question `id`; nil when it is no longer open (answered, expired).
    @discardableResult
    package mutating func close(_ id: String) -> PendingQuestion? {
        open.removeValue(forKey: id)
    }

    /// Closes every question (pi is gone); oldest first.
    package mutating func closeAll() -> [PendingQuestion] {
        let closed = sorted
        open.removeAll()
        return closed
    }
}
