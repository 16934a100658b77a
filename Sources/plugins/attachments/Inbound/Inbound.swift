import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK

/// `attachments.inbound`: turns chat attachments into prompt content. Every item is fetched and
/// judged on its own; a failure becomes a note and an appendix line, never a failed request.
struct Inbound: Sendable {
    let config: AttachmentsConfig
    let proxy: ProxySetting
    let loop: TransferLoop
    /// Local items inside this folder were handed over through the spool and are removed after use.
    let spoolDir: String?
    /// Voice notes' words (`attachments.transcribe`); nil transcribes nothing and says why.
    var transcriber: Transcriber?

    func run(_ request: InboundRequest, deadline: ContinuousClock.Instant? = nil) async -> InboundResult {
        let timeout = timeout(before: deadline)
        let fetched = await withTaskGroup(of: (Int, Result<Download, DownloadFailure>?).self) { group in
            for (index, item) in request.items.enumerated() {
                group.addTask { (index, await fetch(item, timeout: timeout)) }
            }
            var all = [Result<Download, DownloadFailure>?](repeating: nil, count: request.items.count)
            for await (index, result) in group { all[index] = result }
            return all
        }
        var outcomes: [ItemOutcome] = []
        for (item, result) in zip(request.items, fetched) {
            // Audio is heard, not pasted: its words become the prompt (`attachments.transcribe`).
            if case .success(let download)? = result, let format = audio(item, download) {
                outcomes.append(await transcribe(item, download, format, deadline: deadline))
            } else {
                outcomes.append(judge(item, result, imageInput: request.imageInput))
            }
        }
        return InboundResult(outcomes)
    }

    private func fetch(_ item: InboundItem, timeout: Duration) async -> Result<Download, DownloadFailure>? {
        guard let source = item.source else { return nil }
        switch source {
        case .url(let url):
            // A messenger that already knows the file is too big saves the download. A spooled
            // file is judged by reading it, which also removes it from the spool.
            if let size = item.declaredSize, size > config.downloadMaxBytes {
                return .failure(.tooLarge(limit: config.downloadMaxBytes))
            }
            return await loop.fetch(
                DownloadRequest(
                    url: url, maxBytes: config.downloadMaxBytes, timeout: timeout,
                    maxRedirects: config.maxRedirects, proxy: proxy))
        case .path(let path):
            return await LocalFileRead.read(path: path, maxBytes: config.downloadMaxBytes, spoolDir: spoolDir)
        }
    }

    /// The configured timeout, shortened so the answer still reaches the supervisor before it
    /// stops waiting for this request.
    private func timeout(before deadline: ContinuousClock.Instant?) -> Duration {
        let configured = Duration.milliseconds(Int64(config.timeoutSeconds * 1000))
        guard let deadline else { return configured }
        let left = deadline - ContinuousClock.now - .milliseconds(500)
        return max(.milliseconds(250), min(configured, left))
    }

    /// The audio format of a voice note or of a file declared as audio, or of an audio-only
    /// format (Ogg, WAV, MP3, FLAC) the classification finds no image or text in; nil for
    /// everything else. MP4 and WebM are containers for video as often as for sound: only a voice
    /// note or a declared audio type makes them audio.
    func audio(_ item: InboundItem, _ download: Download) -> AudioFormat? {
        guard let format = AudioFormat(download.bytes) else { return nil }
        if item.voice || (item.declaredType ?? "").lowercased().hasPrefix("audio/") { return format }
        guard [.ogg, .wav, .mp3, .flac].contains(format), case .binary = Classification.of(download.bytes) else { return nil }
        return format
    }

    private func transcribe(
        _ item: InboundItem, _ download: Download, _ format: AudioFormat, deadline: ContinuousClock.Instant?
    ) async
        -> ItemOutcome
    {
        guard let transcriber else { return .notTranscribed(item.name, Transcriber.notSetUp) }
        switch await transcriber.transcribe(download.bytes, format: format, declaredSeconds: item.seconds, deadline: deadline) {
        case .success(let words): return .spoken(name: item.name, transcript: words)
        case .failure(let failure): return .notTranscribed(item.name, failure.reason)
        }
    }

    func judge(_ item: InboundItem, _ fetched: Result<Download, DownloadFailure>?, imageInput: Bool) -> ItemOutcome {
        let name = item.name
        let download: Download
        switch fetched {
        case nil:
            return .notIncluded(name, size: nil, "the message gave no link or absolute path for it")
        case .failure(let failure):
            if case .path = item.source { return .notIncluded(name, size: nil, "could not read the file: \(failure.reason)") }
            return .notIncluded(name, size: nil, "download failed: \(failure.reason)")
        case .success(let downloaded):
            download = downloaded
        }
        let size = download.bytes.count
        switch Classification.of(download.bytes) {
        case .image(let format):
            guard imageInput else { return .imageNotSent(name, size: size, "this session's model does not accept images") }
            guard size <= config.imageMaxBytes else {
                return .imageNotSent(name, size: size, "over the \(ByteCount.describe(config.imageMaxBytes)) image limit")
            }
            return .image(name: name, format: format, size: size, base64: Data(download.bytes).base64EncodedString())
        case .otherImage(let format):
            return .notIncluded(name, size: size, "\(format.rawValue) image; only PNG, JPEG, GIF and WebP images can be sent to the model")
        case .text(let text):
            if let mislabelled = mislabelled(item, download) { return mislabelled }
            guard size < config.textInlineMaxBytes else {
                return .notIncluded(name, size: size, "over \(ByteCount.describe(config.textInlineMaxBytes))")
            }
            return .text(
                name: name, size: size,
                block: FencedBlock.render(name: name, language: TextLanguage.forFile(named: name), text: text))
        case .binary(let why):
            return mislabelled(item, download) ?? .notIncluded(name, size: size, why)
        }
    }

    /// Declared an image but is not one: an error page or a mislabelled file. The user expected a
    /// picture, so the content is not pasted into the prompt in its place.
    private func mislabelled(_ item: InboundItem, _ download: Download) -> ItemOutcome? {
        guard
            let declared = [item.declaredType, download.contentType].compactMap({ $0 })
                .first(where: { $0.lowercased().hasPrefix("image/") })
        else { return nil }
        let type = declared.split(separator: ";").first.map { $0.trimmingInlineSpace() } ?? declared
        return .notIncluded(item.name, size: download.bytes.count, "declared as \(type) but the content is not an image")
    }
}
