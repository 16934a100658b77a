/// When an envelope is acknowledged, as `Intake` sees it. Alone, the plugin acknowledges every
/// envelope at once (its journal keeps the message). When a federation shares the app with other
/// machines, a message's event is acknowledged only once pi-relayd has it: this machine may be
/// frozen or killed next, and Slack then sends the event again, perhaps to the next holder.
enum Receipt: Sendable, Equatable {
    /// Nothing of it waits for pi-relayd.
    case now
    /// It brought the message `id`, whose hand-over to pi-relayd has not finished.
    case onceHandedOver(String)
    /// It brought the message `id`, which the journal could not keep (the disk is full): it is
    /// acknowledged only once pi-relayd has it, federation or not. Acknowledged now, a plugin
    /// killed before the hand-over would lose it, and Slack would not send it again.
    case onceHandedOverUnsaved(String)
}
