import PiRelaySDK

/// The vision check (issue 17 point 9): images for a session whose model takes none are not sent.
extension ChatDesk {
    /// Takes the images out of a message for a model without image input (pi's state says so)
    /// and notes why. The text still goes through; a message of images alone is refused, nothing
    /// sent, with the note as the reply.
    package func visionCheck(
        _ inbound: inout InboundContent, text: String, attachments: Int, session: PiSession
    ) async -> ChatMessageResult? {
        guard !inbound.images.isEmpty, await session.modelTakesImages == false else { return nil }
        let count = inbound.images.count
        let model = await session.model ?? "the session's model"
        let note =
            "⚠️ \(model) takes no image input: \(count == 1 ? "the image was" : "\(count) images were") not sent to \(await session.name)."
        // Only images, and no words: nothing is left to send.
        if text.isEmpty, attachments <= count {
            return ChatMessageResult(status: .refused, reply: Reply(note + " Nothing was sent; switch to a model that reads images with /model."))
        }
        inbound.images = []
        // The attachments' notes for pi still name the images: it is told they did not come.
        inbound.appendix += "\n[\(count == 1 ? "the image" : "the images") above could not be sent: \(model) takes no image input]"
        inbound.notes.append(note + " Your text was sent without it.")
        return nil
    }
}
