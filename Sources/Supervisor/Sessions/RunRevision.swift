/// One state of one run: its id and how often it had changed (`RunRecord.revision`).
package struct RunRevision: Equatable, Sendable {
    package let runID: String
    package let revision: Int
}
