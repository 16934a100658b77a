/// What a chat may be sent, as its progress mode and pause decide (`ChatDelivery.wants`).
package enum DeliveryWant {
    /// "typing…" while a run goes on.
    case typing
    /// Live views, notices and echoes of other chats' prompts.
    case progress
    /// The agent's questions.
    case questions
    /// The run's end: the final answer, or the one message of completion-only.
    case final
}
