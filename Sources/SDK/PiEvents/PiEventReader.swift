/// Reads one line of `pi --mode rpc` stdout into a `PiEvent`, keeping only what the relay needs.
///
/// The heavy parts of the stream — the partial assistant message that every `message_update`
/// carries twice, `agent_end.messages` (all but the last one's outcome), usage blocks, images — are skipped by
/// a structural scan that allocates nothing, so reading costs little more than a pass over the
/// bytes. Keys may come in any order and any field may be missing. A pure value: no I/O, no state
/// between lines.
package struct PiEventReader: Sendable {
    /// Cap, in UTF-8 bytes, on `PiToolExecution.resultText`; the rest of the output is skipped.
    package var toolResultTextLimit: Int
    /// Cap, in UTF-8 bytes, on `PiToolExecution.diff`.
    package var diffLimit: Int

    package init(toolResultTextLimit: Int = 4000, diffLimit: Int = 4000) {
        self.toolResultTextLimit = toolResultTextLimit
        self.diffLimit = diffLimit
    }

    /// Reads one line (without its LF). Throws `PiEventReadError` for anything that is not a JSON
    /// object with a string `type`.
    package func read(_ line: UnsafeRawBufferPointer) throws(PiEventReadError) -> PiEvent {
        guard let base = line.baseAddress, !line.isEmpty else {
            throw PiEventReadError(kind: .invalidJSON, offset: 0, reason: "empty line")
        }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var cursor = JSONCursor(start: bytes, end: bytes + line.count)
        cursor.skipWhitespace()
        guard cursor.peek == ASCII.openBrace else {
            do {
                try cursor.skipValue()
                try cursor.expectEnd()
            } catch {
                throw PiEventReadError(error)
            }
            throw PiEventReadError(kind: .notAnObject, offset: 0, reason: "not a JSON object")
        }
        let found: PiEventType?
        do {
            found = try findType(cursor)
        } catch {
            throw PiEventReadError(error)
        }
        guard let type = found else {
            throw PiEventReadError(kind: .missingType, offset: 0, reason: "no string \"type\"")
        }
        if type == .extensionUIRequest { return try readExtensionUIRequest(line) }
        do {
            let payload = try readPayload(type, &cursor)
            try cursor.expectEnd()
            return PiEvent(type: type, payload: payload)
        } catch {
            throw PiEventReadError(error)
        }
    }

    package func read(_ line: [UInt8]) throws(PiEventReadError) -> PiEvent {
        // withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
        try line.withUnsafeBytes { buffer in
            Result { () throws(PiEventReadError) -> PiEvent in try read(buffer) }
        }.get()
    }

    package func read(_ line: String) throws(PiEventReadError) -> PiEvent {
        var copy = line
        return try copy.withUTF8 { buffer in
            Result { () throws(PiEventReadError) -> PiEvent in try read(UnsafeRawBufferPointer(buffer)) }
        }.get()
    }

    /// Finds `type` with a throwaway cursor. pi writes it first, so this normally reads one member;
    /// otherwise the members before it are skipped here and read again by the payload pass.
    func findType(_ start: JSONCursor) throws(JSONParseError) -> PiEventType? {
        var cursor = start
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("type") {
                guard let raw = try cursor.readRawString() else { return nil }
                return PiEventType(raw: raw)
            }
            try cursor.skipValue()
        }
        return nil
    }

    func readPayload(_ type: PiEventType, _ cursor: inout JSONCursor) throws(JSONParseError) -> PiEvent.Payload {
        switch type {
        case .messageUpdate:
            return .messageUpdate(try readMessageUpdate(&cursor))
        case .messageStart, .messageEnd:
            return .message(try readMessageEvent(&cursor))
        case .toolExecutionEnd:
            return .toolExecution(try readToolExecution(&cursor, collectImages: true))
        case .toolExecutionStart, .toolExecutionUpdate:
            return .toolExecution(try readToolExecution(&cursor))
        case .response:
            return .response(try readResponse(&cursor))
        case .autoCompactionStart, .autoCompactionEnd:
            return .autoCompaction(try readAutoCompaction(&cursor))
        case .autoRetryStart, .autoRetryEnd:
            return .autoRetry(try readAutoRetry(&cursor))
        case .extensionError:
            return .extensionError(try readExtensionError(&cursor))
        case .agentEnd:
            // Kept only when it failed: a run's other ends say nothing its `message_end`s did not.
            let last = try readAgentEnd(&cursor)
            return last.stopReason == "error" ? .message(last) : .none
        case .agentStart, .turnStart, .turnEnd, .extensionUIRequest, .other:
            try cursor.openObject()
            var first = true
            while try cursor.nextKey(&first) != nil { try cursor.skipValue() }
            return .none
        }
    }
}
