import PiRelaySDK

extension RelayFormatter {
    /// Answers one request. Pure apart from the counters: the same params give the same answer
    /// in any instance, which the live view's stability across restarts relies on. Runs and
    /// notices are rendered in the request's dialect (`Dialect.markup`).
    func respond(to method: String, params: JSONValue) throws(RemoteError) -> JSONValue {
        stats.count(method)
        switch MethodName(rawValue: method) {
        case .formatLive:
            let request = try FormatRunParams(json: params)
            let run = try RunView(rendering: request.run.json)
            let limit = try self.limit(request.limit, dialect: request.dialect)
            let config = config.detailed(request.detail)
            let live = LiveView(
                run: run, limit: limit, renderer: RunRenderer(config: config, redactor: try redactor(), target: .chat),
                markup: request.dialect.liveMarkup(reusing: settledTexts))
            return FormatLiveResult(chunks: live.chunks, tail: live.tail).json
        case .formatFinal:
            let request = try FormatRunParams(json: params)
            let run = try RunView(rendering: request.run.json)
            let limit = try self.limit(request.limit, dialect: request.dialect)
            let config = config.detailed(request.detail)
            var maxChunks = config.maxChunks
            if let requested = request.maxChunks {
                guard requested >= 0 else { throw .invalidParams("maxChunks must be a non-negative integer") }
                maxChunks = requested
            }
            return FinalAnswer(
                run: run, limit: limit, maxChunks: maxChunks, config: config, redactor: try redactor(), markup: request.dialect.markup
            ).json
        case .formatNotice:
            let request = try FormatNoticeParams(json: params)
            let line = NoticeLine(kind: request.notice, text: RunView.normalised(request.text))
            let markup = request.dialect.markup
            return FormattedText(text: markup.rendered(line.rendered(width: config.noticeWidth, redactor: try redactor()))).json
        case .formatRedact:
            let request = try FormattedText(json: params)
            return FormattedText(text: try redactor().redact(request.text)).json
        case .status:
            return [
                "name": .string(Self.manifest.name), "version": .string(Self.manifest.version),
                "config": config.json, "requests": stats.json,
            ]
        default:
            throw .methodNotFound(method)
        }
    }

    private func redactor() throws(RemoteError) -> Redactor {
        do { return try Redactor(patterns: config.redact, memo: redactedTexts) } catch {
            throw RemoteError(code: .internal, message: error.description)
        }
    }

    /// A terminal's limit is its width, which may be well under a chat's smallest.
    private func limit(_ requested: Int?, dialect: Dialect) throws(RemoteError) -> Int {
        guard let requested else { return config.defaultLimit }
        let minimum = dialect == .ansi ? ANSITerminal.minimumLimit : ChunkSplitter.minimumLimit
        guard requested >= minimum else {
            throw .invalidParams("limit must be an integer of at least \(minimum)")
        }
        return requested
    }
}
