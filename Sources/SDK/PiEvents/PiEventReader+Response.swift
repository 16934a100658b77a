/// `response` lines. `data` is kept raw: most are small, but `get_messages` returns the whole
/// conversation with inline images, so it is parsed only by the caller that wants it.
extension PiEventReader {
    func readResponse(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiResponse {
        var response = PiResponse()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("id") {
                response.id = try cursor.readString()
            } else if key.matches("command") {
                response.command = try cursor.readString()
            } else if key.matches("success") {
                response.success = try cursor.readBool()
            } else if key.matches("error") {
                response.error = try cursor.readString()
            } else if key.matches("data") {
                response.data = PiRawJSON(bytes: Array(try cursor.valueSlice()))
            } else {
                try cursor.skipValue()
            }
        }
        return response
    }
}
