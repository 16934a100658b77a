/// A gated call waiting in its session for a decision. The decision may come before its
/// waiter is in place (an answer during the question's delivery): it is kept until then.
package struct ApprovalGate: Sendable {
    package let rule: String
    package var waiter: CheckedContinuation<ApprovalDecision, Never>?
    package var early: ApprovalDecision?
}
