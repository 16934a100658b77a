/// One state of one run: its id and how often it had changed (`RunRecord.revision`).
struct RunRevision: Equatable, Sendable {
    let runID: String
    let revision: Int
}
