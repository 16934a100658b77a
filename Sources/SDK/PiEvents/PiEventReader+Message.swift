/// `message_start` / `message_end`: role, stop reason, error, usage, and the text blocks of an
/// assistant's or a user's message.
extension PiEventReader {
    func readMessageEvent(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiMessageSummary {
        var summary = PiMessageSummary()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("message") {
                summary = try readMessage(&cursor)
            } else {
                try cursor.skipValue()
            }
        }
        return summary
    }

    func readMessage(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiMessageSummary {
        var summary = PiMessageSummary()
        guard cursor.peek == ASCII.openBrace else {
            try cursor.skipValue()
            return summary
        }
        var text: [UInt8] = []
        var hasText = false
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("role") {
                summary.role = try cursor.readString()
            } else if key.matches("stopReason") {
                summary.stopReason = try cursor.readString()
            } else if key.matches("errorMessage") {
                summary.errorMessage = try cursor.readString()
            } else if key.matches("usage"), cursor.peek == ASCII.openBrace {
                summary.usage = PiRawJSON(bytes: Array(try cursor.valueSlice()))
            } else if key.matches("content"), summary.role == nil || summary.role == "assistant" || summary.role == "user" {
                // pi writes `role` first; if it comes later the text is collected and dropped below.
                text.removeAll(keepingCapacity: true)
                hasText = try readTextBlocks(&cursor, into: &text, limit: Int.max).found
            } else {
                try cursor.skipValue()
            }
        }
        if summary.role == "assistant" || summary.role == "user", hasText {
            summary.text = String(decoding: text, as: UTF8.self)
        }
        if summary.role != "assistant" { summary.usage = nil }
        return summary
    }

    /// `agent_end`: the last of its `messages` (role, stopReason, errorMessage; no content). pi-rpc
    /// §3: when the agent loop itself throws, this is the only word of it, a synthetic error
    /// message with no `message_end`.
    func readAgentEnd(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiMessageSummary {
        var last = PiMessageSummary()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            guard key.matches("messages"), cursor.peek == ASCII.openBracket else {
                try cursor.skipValue()
                continue
            }
            try cursor.openArray()
            var firstElement = true
            while try cursor.nextElement(&firstElement) {
                last = PiMessageSummary()
                guard cursor.peek == ASCII.openBrace else {
                    try cursor.skipValue()
                    continue
                }
                try cursor.openObject()
                var firstKey = true
                while let field = try cursor.nextKey(&firstKey) {
                    if field.matches("role") {
                        last.role = try cursor.readString()
                    } else if field.matches("stopReason") {
                        last.stopReason = try cursor.readString()
                    } else if field.matches("errorMessage") {
                        last.errorMessage = try cursor.readString()
                    } else {
                        try cursor.skipValue()
                    }
                }
            }
        }
        return last
    }

    /// Appends the `text` of each `{"type":"text","text":…}` block of a content array to `out`, up
    /// to `limit` bytes, skipping every other block (thinking, tool calls, images). `found` is
    /// false when there is no text block (or the value is not an array); `complete` is false when
    /// the limit cut the text.
    func readTextBlocks(
        _ cursor: inout JSONCursor, into out: inout [UInt8], limit: Int
    )
        throws(JSONParseError) -> (found: Bool, complete: Bool)
    {
        var none: [PiImage]? = nil
        return try readTextBlocks(&cursor, into: &out, limit: limit, images: &none)
    }

    /// The same, also collecting image blocks when `images` is not nil (tool results only:
    /// their base64 data is large and rare, so only final results pay for it).
    func readTextBlocks(
        _ cursor: inout JSONCursor, into out: inout [UInt8], limit: Int, images: inout [PiImage]?
    )
        throws(JSONParseError) -> (found: Bool, complete: Bool)
    {
        guard cursor.peek == ASCII.openBracket else {
            try cursor.skipValue()
            return (false, true)
        }
        var found = false
        var complete = true
        try cursor.openArray()
        var firstElement = true
        while try cursor.nextElement(&firstElement) {
            guard cursor.peek == ASCII.openBrace else {
                try cursor.skipValue()
                continue
            }
            var isText = false
            var isImage = false
            var body: UnsafeBufferPointer<UInt8>?
            var bodyStart = cursor.head
            var imageData: String?
            var mimeType: String?
            try cursor.openObject()
            var first = true
            while let key = try cursor.nextKey(&first) {
                if key.matches("type") {
                    let kind = try cursor.readRawString()
                    isText = kind?.matches("text") ?? false
                    isImage = kind?.matches("image") ?? false
                } else if key.matches("text") {
                    bodyStart = cursor.head
                    body = try cursor.skipStringValue()
                } else if images != nil, key.matches("data") {
                    imageData = try cursor.readString()
                } else if images != nil, key.matches("mimeType") {
                    mimeType = try cursor.readString()
                } else {
                    try cursor.skipValue()
                }
            }
            if isImage, let imageData, images != nil {
                images?.append(PiImage(mimeType: mimeType ?? "application/octet-stream", base64: imageData))
            }
            guard isText, let body else { continue }
            found = true
            if complete {
                complete = try cursor.decode(body, into: &out, limit: limit, valueStart: bodyStart)
            }
        }
        return (found, complete)
    }
}
