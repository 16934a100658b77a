/// A gated call waiting in its session for a decision. The decision may come before its
/// waiter is in place (an answer during the question's delivery): it is kept until then.
struct ApprovalGate: Sendable {
    let rule: String
    var waiter: CheckedContinuation<ApprovalDecision, Never>?
    var early: ApprovalDecision?
}
