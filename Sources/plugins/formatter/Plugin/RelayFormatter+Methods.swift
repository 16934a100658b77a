import PiRelaySDK

extension RelayFormatter {
    /// Answers one request. Pure apart from the counters: the same params give the same answer
    /// in any instance, which the live view's stability across restarts relies on.
    func respond(to method: String, params: JSONValue) throws(RemoteError) -> JSONValue {
        stats.count(method)
        switch method {
        case "format.live":
            let run = try RunView(json: try Self.object(params, "run"))
            let limit = try self.limit(params)
            let live = LiveView(run: run, limit: limit, renderer: RunRenderer(config: config, redactor: try redactor(), target: .chat))
            return ["chunks": .array(live.chunks.map { .string($0) }), "tail": .string(live.tail)]
        case "format.final":
            let run = try RunView(json: try Self.object(params, "run"))
            let limit = try self.limit(params)
            var maxChunks = config.maxChunks
            if let v = params["maxChunks"], !v.isNull {
                guard let n = v.intValue, n >= 0 else { throw .invalidParams("maxChunks must be a non-negative integer") }
                maxChunks = n
            }
            return FinalAnswer(run: run, limit: limit, maxChunks: maxChunks, config: config, redactor: try redactor()).json
        case "format.notice":
            guard let kind = params["notice"]?.stringValue else { throw .invalidParams("notice must be a string") }
            let text = params["text"]?.stringValue ?? ""
            let line = NoticeLine(kind: NoticeKind(wireName: kind), text: RunView.normalised(text))
            return ["text": .string(line.rendered(width: config.noticeWidth, redactor: try redactor()))]
        case "format.redact":
            guard let text = params["text"]?.stringValue else { throw .invalidParams("text must be a string") }
            return ["text": .string(try redactor().redact(text))]
        case "status":
            return [
                "name": .string(Self.manifest.name), "version": .string(Self.manifest.version),
                "config": config.json, "requests": stats.json,
            ]
        default:
            throw .methodNotFound(method)
        }
    }

    private func redactor() throws(RemoteError) -> Redactor {
        do { return try Redactor(patterns: config.redact) } catch {
            throw RemoteError(code: "internal", message: error.description)
        }
    }

    private func limit(_ params: JSONValue) throws(RemoteError) -> Int {
        guard let v = params["limit"], !v.isNull else { return config.defaultLimit }
        guard let n = v.intValue, n >= ChunkSplitter.minimumLimit else {
            throw .invalidParams("limit must be an integer of at least \(ChunkSplitter.minimumLimit)")
        }
        return n
    }

    private static func object(_ params: JSONValue, _ key: String) throws(RemoteError) -> JSONValue {
        guard let v = params[key], case .object = v else { throw .invalidParams("\(key) must be an object") }
        return v
    }
}
