import FoundationEssentials
import PiRelaySDK

extension SessionControl {
    /// `send`, `steer` and `follow-up`: images by path or as content, `--attach` through the
    /// attachments plugin exactly as a chat attachment goes.
    package func prompt(_ session: PiSession, kind: PromptKind, _ params: JSONValue) async throws -> JSONValue {
        guard let text = params["text"]?.stringValue, !text.isEmpty else { throw RemoteError.invalidParams("\(kind.rawValue) needs a text") }
        var images: [JSONValue] = []
        for image in params["images"]?.arrayValue ?? [] {
            if let path = image.stringValue { images.append(try ImageFile.content(path: path)) } else { images.append(image) }
        }
        var message = text
        var notes: [String] = []
        let attach = (params["attach"]?.arrayValue ?? []).compactMap(\.stringValue).map { item in
            let name = URL(fileURLWithPath: item).lastPathComponent
            return item.contains("://") ? AttachmentRef(url: item, filename: name) : AttachmentRef(path: item, filename: name)
        }
        if !attach.isEmpty {
            let inbound = await delivery.inbound(attach, session: session)
            // A voice note's words join the text, as in a chat.
            for words in inbound.transcripts { message += "\n" + words }
            message += inbound.appendix
            images += inbound.images
            notes = inbound.notes
        }
        // The vision check, as for a chat: a model without image input gets the text alone.
        if !images.isEmpty, await session.modelTakesImages == false {
            notes.append(
                "\(await session.model ?? "the session's model") takes no image input: \(images.count) image(s) not sent; the text was.")
            images = []
        }
        let names = attach.map(\.filename)
        var result: PromptOutcome
        do {
            result = try await prompter.prompt(
                session, kind: kind, text: message, images: images,
                origin: params["origin"]?.stringValue ?? "terminal",
                echo: PromptSender.echo(text, attachments: names))
        } catch let full as QueueFull {
            throw RemoteError(code: .unavailable, message: full.description)
        } catch let refused as PromptRefused {
            throw refused.remote
        }
        result.notes = notes
        return result.json
    }
}
