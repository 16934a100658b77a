import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Files both ways: workspace files and tool images posted to chats, chat attachments turned
/// into prompt content, all through the attachments plugin where it has a say.
extension ChatDelivery {
    /// Copies a workspace file (through the attachments plugin's path guard) and posts it to the
    /// given chats, as an image when `image` (messengers show those inline). Returns the file name.
    package func sendFile(
        _ session: PiSession, path: String, to targets: [Binding], caption: String? = nil, image: Bool = false
    ) async throws -> String {
        guard let attachments = await host.plugin(forRole: "attachments") else {
            throw RemoteError(code: .unavailable, message: "sending files needs the attachments plugin")
        }
        var name = path
        for binding in targets {
            let maxBytes = traits.uploadBytes(binding.messenger)
            let spooled = try await attachments.request(
                .attachmentsOutbound, AttachmentsOutboundParams(cwd: await session.cwd, path: path, maxBytes: maxBytes),
                timeout: .seconds(60))
            name = spooled.filename
            await deliver(
                binding.messenger, .chatPost,
                ChatPostParams(
                    target: binding.target, kind: .file, sessionID: session.id,
                    text: await redacted((image ? "🖼 " : "📎 ") + "\(name) (\(spooled.size) bytes)" + (caption.map { "\n" + $0 } ?? "")),
                    files: [PostedFile(path: spooled.path, filename: name)]))
        }
        return name
    }

    /// The image files the last answer names that are there, in the session's folder (relative
    /// to it, or absolute): offered under `/images` after the tools' images. Sending one still
    /// asks the path guard; this only leaves out what it would refuse for its place.
    package func namedImages(_ session: PiSession) async -> [(named: String, path: String)] {
        guard let text = await session.recentRuns.last?.run.text, let folder = session.cwd.realPath else { return [] }
        return NamedImages.paths(in: text).compactMap { path in
            let named = path.hasPrefix("/") ? path : path.hasPrefix("~/") ? path.expandingTilde : session.cwd + "/" + path
            guard let full = named.realPath, full.isWithin(folder) else { return nil }
            var info = stat()
            return stat(full, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? (path, full) : nil
        }
    }

    /// Posts image number `number` (1-based) of the session's last run, as a spool copy (the
    /// messenger deletes what it uploads): the tools' images first, then the files its answer
    /// named, which go through the attachments plugin's path guard like `/send-image`.
    package func sendImage(_ session: PiSession, number: Int, to targets: [Binding]) async throws -> String {
        let list = await session.images
        if number > list.count {
            let named = await namedImages(session)
            guard number - list.count <= named.count else {
                throw RemoteError(code: .notFound, message: "no image \(number); the last run has \(list.count + named.count)")
            }
            return try await sendFile(session, path: named[number - list.count - 1].path, to: targets, image: true)
        }
        guard number >= 1 else {
            throw RemoteError(code: .notFound, message: "no image \(number); the last run has \(list.count)")
        }
        let image = list[number - 1]
        var info = stat()
        let size = stat(image.path, &info) == 0 ? Int(info.st_size) : 0
        for binding in targets {
            // As `/file` refuses a file that big: the messenger would leave it out of the post.
            let limit = traits.uploadBytes(binding.messenger)
            guard size <= limit else {
                throw RemoteError.invalidParams(
                    "\(image.filename) is \(ByteCount.describe(size)), over this chat's upload limit of \(ByteCount.describe(limit))")
            }
            let copy = home.spoolDir + "/\(UUID().uuidString.prefix(8))-\(image.filename)"
            guard let data = FileManager.default.contents(atPath: image.path), AtomicFile.write([UInt8](data), to: copy) else {
                throw RemoteError(code: .internal, message: "cannot copy \(image.filename) to the spool folder")
            }
            await deliver(
                binding.messenger, .chatPost,
                ChatPostParams(
                    target: binding.target, kind: .file, sessionID: session.id, text: "🖼 \(image.filename)",
                    files: [PostedFile(path: copy, filename: image.filename)]))
        }
        return image.filename
    }

    /// Runs chat attachments through the attachments plugin, for `session`'s prompt.
    package func inbound(_ items: [AttachmentRef], session: PiSession) async -> InboundContent {
        InboundContent(await prepared(items, for: session.id))
    }

    /// Removes the messenger's copies of `items` in the spool folder; a path elsewhere is the
    /// user's own file (the terminal's `--attach`), never removed.
    nonisolated package func discardSpooled(_ items: [AttachmentRef]) {
        removeSpooled(items.compactMap(\.path))
    }

    /// Removes those of `paths` that are in the spool folder (protocol §8: the receiver's to remove).
    nonisolated func removeSpooled(_ paths: [String]) {
        for path in paths where path.resolvesInside(home.spoolDir) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The attachments as a prompt takes them (`sessionID`, for the plugin's log: the session
    /// they are for, here or on another machine). Without the plugin each file is still named:
    /// nothing is dropped silently.
    package func prepared(_ items: [AttachmentRef], for sessionID: String) async -> AttachmentsInboundResult {
        guard !items.isEmpty else { return AttachmentsInboundResult() }
        if let attachments = await host.plugin(forRole: "attachments") {
            do {
                return try await attachments.request(
                    .attachmentsInbound, AttachmentsInboundParams(sessionID: sessionID, items: items), timeout: .seconds(120))
            } catch {
                logger.warning("attachments plugin failed: \(error)")
            }
        }
        // The messenger's copies in the spool are the plugin's to remove once read (protocol §8);
        // with no plugin to read them they would stay for good.
        discardSpooled(items)
        let names = items.map { "[attachment \($0.filename.isEmpty ? "file" : $0.filename): not included: the attachments plugin is not available]" }
        return AttachmentsInboundResult(
            appendix: names.joined(separator: "\n"), notes: ["Attachments could not be processed; they are named in the prompt."])
    }
}
