/// `message_update`: keeps the small fields of `assistantMessageEvent` and skips both copies of
/// the partial message (`message` and `assistantMessageEvent.partial`).
extension PiEventReader {
    func readMessageUpdate(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiAssistantMessageEvent {
        var event = PiAssistantMessageEvent()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("assistantMessageEvent") {
                event = try readAssistantMessageEvent(&cursor)
            } else {
                try cursor.skipValue()
            }
        }
        return event
    }

    func readAssistantMessageEvent(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiAssistantMessageEvent {
        var event = PiAssistantMessageEvent()
        guard try cursor.openObjectOrSkip() else { return event }
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("type") {
                event.type = try cursor.readRawString().map(PiAssistantMessageEventType.init(raw:))
            } else if key.matches("contentIndex") {
                event.contentIndex = try cursor.readInt()
            } else if key.matches("delta") {
                event.delta = try cursor.readString()
            } else if key.matches("content") {
                event.content = try cursor.readString()
            } else if key.matches("toolCall") {
                event.toolCall = try readToolCall(&cursor)
            } else {
                try cursor.skipValue()
            }
        }
        return event
    }

    func readToolCall(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiToolCall? {
        guard try cursor.openObjectOrSkip() else { return nil }
        var call = PiToolCall()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("id") {
                call.id = try cursor.readString()
            } else if key.matches("name") {
                call.name = try cursor.readString()
            } else if key.matches("arguments") {
                call.arguments = PiRawJSON(bytes: Array(try cursor.valueSlice()))
            } else {
                try cursor.skipValue()
            }
        }
        return call
    }
}
