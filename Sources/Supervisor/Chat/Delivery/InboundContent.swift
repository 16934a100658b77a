import PiRelaySDK

/// What a message's attachments add to its prompt (`attachments.inbound`): blocks below the text,
/// images, notes for the chat, and the words of its voice notes.
package struct InboundContent: Sendable {
    package var appendix = ""
    package var images: [JSONValue] = []
    package var notes: [String] = []
    /// Each voice note's words, in order: they are the prompt's text.
    package var transcripts: [String] = []

    package init(appendix: String = "", images: [JSONValue] = [], notes: [String] = [], transcripts: [String] = []) {
        self.appendix = appendix
        self.images = images
        self.notes = notes
        self.transcripts = transcripts
    }
}
