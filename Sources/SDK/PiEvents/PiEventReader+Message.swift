/// `message_start` / `message_end`: role, stop reason, error, and an assistant's text blocks.
extension PiEventReader {
    func readMessageEvent(_ c: inout JSONCursor) throws(JSONParseError) -> PiMessageSummary {
        var summary = PiMessageSummary()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("message") {
                summary = try readMessage(&c)
            } else {
                try c.skipValue()
            }
        }
        return summary
    }

    func readMessage(_ c: inout JSONCursor) throws(JSONParseError) -> PiMessageSummary {
        var summary = PiMessageSummary()
        guard c.peek == ASCII.openBrace else {
            try c.skipValue()
            return summary
        }
        var text: [UInt8] = []
        var hasText = false
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("role") {
                summary.role = try c.readString()
            } else if key.matches("stopReason") {
                summary.stopReason = try c.readString()
            } else if key.matches("errorMessage") {
                summary.errorMessage = try c.readString()
            } else if key.matches("content"), summary.role == nil || summary.role == "assistant" {
                // pi writes `role` first; if it comes later the text is collected and dropped below.
                text.removeAll(keepingCapacity: true)
                hasText = try readTextBlocks(&c, into: &text, limit: Int.max).found
            } else {
                try c.skipValue()
            }
        }
        if summary.role == "assistant", hasText {
            summary.text = String(decoding: text, as: UTF8.self)
        }
        return summary
    }

    /// Appends the `text` of each `{"type":"text","text":…}` block of a content array to `out`, up
    /// to `limit` bytes, skipping every other block (thinking, tool calls, images). `found` is
    /// false when there is no text block (or the value is not an array); `complete` is false when
    /// the limit cut the text.
    func readTextBlocks(
        _ c: inout JSONCursor, into out: inout [UInt8], limit: Int
    )
        throws(JSONParseError) -> (found: Bool, complete: Bool)
    {
        var none: [PiImage]? = nil
        return try readTextBlocks(&c, into: &out, limit: limit, images: &none)
    }

    /// The same, also collecting image blocks when `images` is not nil (tool results only:
    /// their base64 data is large and rare, so only final results pay for it).
    func readTextBlocks(
        _ c: inout JSONCursor, into out: inout [UInt8], limit: Int, images: inout [PiImage]?
    )
        throws(JSONParseError) -> (found: Bool, complete: Bool)
    {
        guard c.peek == ASCII.openBracket else {
            try c.skipValue()
            return (false, true)
        }
        var found = false
        var complete = true
        try c.openArray()
        var firstElement = true
        while try c.nextElement(&firstElement) {
            guard c.peek == ASCII.openBrace else {
                try c.skipValue()
                continue
            }
            var isText = false
            var isImage = false
            var body: UnsafeBufferPointer<UInt8>?
            var bodyStart = c.p
            var imageData: String?
            var mimeType: String?
            try c.openObject()
            var first = true
            while let key = try c.nextKey(&first) {
                if key.matches("type") {
                    let t = try c.readRawString()
                    isText = t?.matches("text") ?? false
                    isImage = t?.matches("image") ?? false
                } else if key.matches("text") {
                    bodyStart = c.p
                    body = try c.skipStringValue()
                } else if images != nil, key.matches("data") {
                    imageData = try c.readString()
                } else if images != nil, key.matches("mimeType") {
                    mimeType = try c.readString()
                } else {
                    try c.skipValue()
                }
            }
            if isImage, let imageData, images != nil {
                images?.append(PiImage(mimeType: mimeType ?? "application/octet-stream", base64: imageData))
            }
            guard isText, let body else { continue }
            found = true
            if complete {
                complete = try c.decode(body, into: &out, limit: limit, valueStart: bodyStart)
            }
        }
        return (found, complete)
    }
}
