/// The three buttons of an approval question, as the chats and the terminal show them.
package enum ApprovalChoice: String, CaseIterable, Sendable {
    case once = "Approve once"
    case session = "Approve for session"
    case deny = "Deny"

    package static var labels: [String] { allCases.map(\.rawValue) }
}
