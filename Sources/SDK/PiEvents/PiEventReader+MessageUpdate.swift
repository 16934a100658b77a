/// `message_update`: keeps the small fields of `assistantMessageEvent` and skips both copies of
/// the partial message (`message` and `assistantMessageEvent.partial`).
extension PiEventReader {
    func readMessageUpdate(_ c: inout JSONCursor) throws(JSONParseError) -> PiAssistantMessageEvent {
        var event = PiAssistantMessageEvent()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("assistantMessageEvent") {
                event = try readAssistantMessageEvent(&c)
            } else {
                try c.skipValue()
            }
        }
        return event
    }

    func readAssistantMessageEvent(_ c: inout JSONCursor) throws(JSONParseError) -> PiAssistantMessageEvent {
        var event = PiAssistantMessageEvent()
        guard c.peek == ASCII.openBrace else {
            try c.skipValue()
            return event
        }
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("type") {
                event.type = try c.readRawString().map(PiAssistantMessageEventType.init(raw:))
            } else if key.matches("contentIndex") {
                event.contentIndex = try c.readInt()
            } else if key.matches("delta") {
                event.delta = try c.readString()
            } else if key.matches("content") {
                event.content = try c.readString()
            } else if key.matches("toolCall") {
                event.toolCall = try readToolCall(&c)
            } else {
                try c.skipValue()
            }
        }
        return event
    }

    func readToolCall(_ c: inout JSONCursor) throws(JSONParseError) -> PiToolCall? {
        guard c.peek == ASCII.openBrace else {
            try c.skipValue()
            return nil
        }
        var call = PiToolCall()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("id") {
                call.id = try c.readString()
            } else if key.matches("name") {
                call.name = try c.readString()
            } else if key.matches("arguments") {
                call.arguments = PiRawJSON(bytes: Array(try c.valueSlice()))
            } else {
                try c.skipValue()
            }
        }
        return call
    }
}
