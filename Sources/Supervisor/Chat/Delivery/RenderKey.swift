import PiRelaySDK

/// What a rendering of a run depends on beside the run: the chats that share these get the same
/// text, so a run's view or final is rendered once for them all, not once per chat.
package struct RenderKey: Hashable {
    package let dialect: Dialect
    package let detail: RunDetail
    /// The room for the text: the messenger's longest message less the chat's label.
    package let limit: Int
}
