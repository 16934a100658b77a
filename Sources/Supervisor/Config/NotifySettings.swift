/// `notify:` — when the requester of a run is mentioned (pinged) in the chat.
package struct NotifySettings: Sendable, Equatable {
    /// `notify.longRunSeconds`: a run that ends after longer than this mentions whoever asked.
    package var longRunSeconds: Duration = .seconds(120)
    /// `notify.mentions`: whether chats mention at all until one says otherwise with `/mentions`.
    package var mentions = true
}
