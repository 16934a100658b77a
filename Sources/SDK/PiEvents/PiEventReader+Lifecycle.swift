/// The small run-lifecycle events: auto-compaction, auto-retry and extension errors.
extension PiEventReader {
    func readAutoCompaction(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiAutoCompaction {
        var value = PiAutoCompaction()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("reason") {
                value.reason = try cursor.readString()
            } else if key.matches("aborted") {
                value.aborted = try cursor.readBool()
            } else if key.matches("willRetry") {
                value.willRetry = try cursor.readBool()
            } else if key.matches("errorMessage") {
                value.errorMessage = try cursor.readString()
            } else {
                try cursor.skipValue()
            }
        }
        return value
    }

    func readAutoRetry(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiAutoRetry {
        var value = PiAutoRetry()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("attempt") {
                value.attempt = try cursor.readInt()
            } else if key.matches("maxAttempts") {
                value.maxAttempts = try cursor.readInt()
            } else if key.matches("delayMs") {
                value.delayMs = try cursor.readInt()
            } else if key.matches("errorMessage") {
                value.errorMessage = try cursor.readString()
            } else if key.matches("success") {
                value.success = try cursor.readBool()
            } else if key.matches("finalError") {
                value.finalError = try cursor.readString()
            } else {
                try cursor.skipValue()
            }
        }
        return value
    }

    func readExtensionError(_ cursor: inout JSONCursor) throws(JSONParseError) -> PiExtensionError {
        var value = PiExtensionError()
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("extensionPath") {
                value.extensionPath = try cursor.readString()
            } else if key.matches("event") {
                value.event = try cursor.readString()
            } else if key.matches("error") {
                value.error = try cursor.readString()
            } else {
                try cursor.skipValue()
            }
        }
        return value
    }
}
