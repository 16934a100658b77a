/// `response` lines. `data` is kept raw: most are small, but `get_messages` returns the whole
/// conversation with inline images, so it is parsed only by the caller that wants it.
extension PiEventReader {
    func readResponse(_ c: inout JSONCursor) throws(JSONParseError) -> PiResponse {
        var response = PiResponse()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("id") {
                response.id = try c.readString()
            } else if key.matches("command") {
                response.command = try c.readString()
            } else if key.matches("success") {
                response.success = try c.readBool()
            } else if key.matches("error") {
                response.error = try c.readString()
            } else if key.matches("data") {
                response.data = PiRawJSON(bytes: Array(try c.valueSlice()))
            } else {
                try c.skipValue()
            }
        }
        return response
    }
}
