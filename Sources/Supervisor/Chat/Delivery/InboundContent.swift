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

    /// The attachments plugin's answer (or its stand-in): its blocks go below the user's text,
    /// never glued onto its last line (pi reads commands from the first line).
    package init(_ result: AttachmentsInboundResult) {
        self.init(
            appendix: result.appendix.isEmpty ? "" : "\n\n" + result.appendix, images: result.images.map(\.json), notes: result.notes,
            transcripts: result.transcripts)
    }
}
