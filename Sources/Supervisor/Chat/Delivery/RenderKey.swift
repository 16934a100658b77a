import PiRelaySDK

/// What a rendering of a run depends on beside the run: the chats that share these get the same
/// text, so a run's view or final is rendered once for them all, not once per chat.
struct RenderKey: Hashable {
    let dialect: Dialect
    let detail: RunDetail
    /// The room for the text: the messenger's longest message less the chat's label.
    let limit: Int
}
