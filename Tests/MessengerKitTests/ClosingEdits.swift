/// What the fake platform did with each closing's edit.
actor ClosingEdits {
    struct Gone: Error {}
    struct Busy: Error {}

    private(set) var shown: [String] = []
    private var failures: [Int: [any Error]] = [:]

    func fail(_ card: Int, with errors: [any Error]) { failures[card] = errors }

    func edit(_ card: Int, _ text: String) throws {
        if var queued = failures[card], !queued.isEmpty {
            let error = queued.removeFirst()
            failures[card] = queued
            throw error
        }
        shown.append("\(card): \(text)")
    }
}
