import NIOCore

/// What the client sends, written into a buffer (protocol v3, "Message Formats").
enum FrontendMessage {
    /// Asks the server to speak TLS before anything else; it answers one byte, S or N.
    static func sslRequest(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(8))
        buffer.writeInteger(Int32(80_877_103))
    }

    static func startup(user: String, database: String, into buffer: inout ByteBuffer) {
        let start = buffer.writerIndex
        buffer.writeInteger(Int32(0))
        buffer.writeInteger(Int32(196_608))  // protocol 3.0
        for (key, value) in [
            ("user", user), ("database", database), ("application_name", "pi-relay-federation"), ("client_encoding", "UTF8"),
        ] {
            buffer.writeNullTerminatedString(key)
            buffer.writeNullTerminatedString(value)
        }
        buffer.writeInteger(UInt8(0))
        buffer.setInteger(Int32(buffer.writerIndex - start), at: start)
    }

    /// A password (clear or MD5-hashed).
    static func password(_ text: String, into buffer: inout ByteBuffer) {
        message("p", into: &buffer) { $0.writeNullTerminatedString(text) }
    }

    static func saslInitial(mechanism: String, data: [UInt8], into buffer: inout ByteBuffer) {
        message("p", into: &buffer) {
            $0.writeNullTerminatedString(mechanism)
            $0.writeInteger(Int32(data.count))
            $0.writeBytes(data)
        }
    }

    static func saslResponse(_ data: [UInt8], into buffer: inout ByteBuffer) {
        message("p", into: &buffer) { $0.writeBytes(data) }
    }

    /// Parse, Bind, Execute and Sync of the unnamed statement: one round trip, results in text.
    static func query(_ sql: SQL, into buffer: inout ByteBuffer) {
        message("P", into: &buffer) {
            $0.writeInteger(UInt8(0))  // the unnamed statement
            $0.writeNullTerminatedString(sql.text)
            $0.writeInteger(Int16(sql.values.count))
            for value in sql.values { $0.writeInteger(value.type) }
        }
        message("B", into: &buffer) {
            $0.writeInteger(UInt8(0))  // the unnamed portal
            $0.writeInteger(UInt8(0))  // of the unnamed statement
            $0.writeInteger(Int16(0))  // every parameter in text
            $0.writeInteger(Int16(sql.values.count))
            for value in sql.values {
                if let text = value.text {
                    $0.writeInteger(Int32(text.utf8.count))
                    $0.writeString(text)
                } else {
                    $0.writeInteger(Int32(-1))
                }
            }
            $0.writeInteger(Int16(0))  // every column in text
        }
        message("E", into: &buffer) {
            $0.writeInteger(UInt8(0))
            $0.writeInteger(Int32(0))  // every row
        }
        message("S", into: &buffer) { _ in }
    }

    static func terminate(into buffer: inout ByteBuffer) {
        message("X", into: &buffer) { _ in }
    }

    private static func message(_ type: Unicode.Scalar, into buffer: inout ByteBuffer, _ body: (inout ByteBuffer) -> Void) {
        buffer.writeInteger(UInt8(ascii: type))
        let start = buffer.writerIndex
        buffer.writeInteger(Int32(0))
        body(&buffer)
        buffer.setInteger(Int32(buffer.writerIndex - start), at: start)
    }
}
