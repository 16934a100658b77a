/// The small run-lifecycle events: auto-compaction, auto-retry and extension errors.
extension PiEventReader {
    func readAutoCompaction(_ c: inout JSONCursor) throws(JSONParseError) -> PiAutoCompaction {
        var value = PiAutoCompaction()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("reason") {
                value.reason = try c.readString()
            } else if key.matches("aborted") {
                value.aborted = try c.readBool()
            } else if key.matches("willRetry") {
                value.willRetry = try c.readBool()
            } else if key.matches("errorMessage") {
                value.errorMessage = try c.readString()
            } else {
                try c.skipValue()
            }
        }
        return value
    }

    func readAutoRetry(_ c: inout JSONCursor) throws(JSONParseError) -> PiAutoRetry {
        var value = PiAutoRetry()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("attempt") {
                value.attempt = try c.readInt()
            } else if key.matches("maxAttempts") {
                value.maxAttempts = try c.readInt()
            } else if key.matches("delayMs") {
                value.delayMs = try c.readInt()
            } else if key.matches("errorMessage") {
                value.errorMessage = try c.readString()
            } else if key.matches("success") {
                value.success = try c.readBool()
            } else if key.matches("finalError") {
                value.finalError = try c.readString()
            } else {
                try c.skipValue()
            }
        }
        return value
    }

    func readExtensionError(_ c: inout JSONCursor) throws(JSONParseError) -> PiExtensionError {
        var value = PiExtensionError()
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("extensionPath") {
                value.extensionPath = try c.readString()
            } else if key.matches("event") {
                value.event = try c.readString()
            } else if key.matches("error") {
                value.error = try c.readString()
            } else {
                try c.skipValue()
            }
        }
        return value
    }
}
